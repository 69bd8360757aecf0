'use strict';
// The one-time code is the URL's fragment: never sent to a server or a
// proxy's log; it is traded once for this browser's cookie.
(async () => {
  const msg = document.getElementById('msg');
  const code = location.hash.slice(1);
  history.replaceState(null, '', '/pair');
  if (!code) { msg.textContent = 'No pairing code in this link.'; return; }
  const ua = navigator.userAgent;
  const os = /Android/.test(ua) ? 'Android' : /iPhone|iPad/.test(ua) ? 'iOS' : /Mac OS/.test(ua) ? 'macOS' : /Windows/.test(ua) ? 'Windows' : /Linux/.test(ua) ? 'Linux' : 'browser';
  const br = /Firefox\//.test(ua) ? 'Firefox' : /Edg\//.test(ua) ? 'Edge' : /Chrom(e|ium)\//.test(ua) ? 'Chrome' : /Safari\//.test(ua) ? 'Safari' : '';
  try {
    const r = await fetch('/api/pair', {method: 'POST', headers: {'Content-Type': 'application/json'},
      body: JSON.stringify({code, name: (br ? br + ' on ' : '') + os})});
    const j = await r.json().catch(() => ({}));
    if (r.ok) { location.replace('/'); return; }
    msg.textContent = 'Refused: ' + (j.error || r.status);
  } catch (e) {
    msg.textContent = 'Could not reach ag-notify: ' + e;
  }
})();
