// Package contrib holds, for the installers, the files ag writes into
// agents' config directories whole: the OpenCode plugin (Kilo's too), the
// extension Pi and omp load, and Cline's hook script. They live here as the JavaScript they are, so they can
// be read, tested under node (t/js) and installed by hand.
package contrib

import _ "embed"

// OpenCodePlugin is contrib/opencode/ag.js.
//
//go:embed opencode/ag.js
var OpenCodePlugin string

// PiExtension is contrib/pi/ag.js, the extension of Pi and omp.
//
//go:embed pi/ag.js
var PiExtension string

// ClineHook is contrib/cline/hook.sh, one copy per hook event.
//
//go:embed cline/hook.sh
var ClineHook string
