package serve

import (
	"encoding/json"
	"math"
	"strings"
)

// Fill makes up a value that fits a JSON schema, for the structured
// replies clients ask for without tools (a session title, a router's
// choice): every property of an object, strings "Fake <property>", the
// first of an enum, numbers the lowest the schema allows, else 1 for an
// integer (a score or a count: Gemini CLI's router asks for an integer
// with no minimum in the schema and rejects a 0) and 0 for a number (a
// ratio or a confidence stays low), arrays of minItems (at least one). It reads JSON Schema and the OpenAPI subset
// Gemini's responseSchema uses (upper-case types); "$ref"s into the same
// schema are followed. What it cannot read becomes an empty object.
func Fill(schema json.RawMessage) any {
	var root map[string]any
	if json.Unmarshal(schema, &root) != nil {
		return map[string]any{}
	}
	f := filler{root: root}
	return f.fill(root, "text", 0)
}

// filler fills one schema; nodes bounds the values it makes, so a
// recursive schema ends.
type filler struct {
	root  map[string]any
	nodes int
}

// FillJSON is Fill's value as JSON text.
func FillJSON(schema json.RawMessage) string {
	return JSON(Fill(schema))
}

func (f *filler) fill(s map[string]any, name string, depth int) any {
	if f.nodes++; depth > 16 || f.nodes > 4096 {
		return nil
	}
	if ref, ok := s["$ref"].(string); ok {
		if t, ok := pointer(f.root, ref).(map[string]any); ok {
			return f.fill(t, name, depth+1)
		}
		return map[string]any{}
	}
	if v, ok := s["const"]; ok {
		return v
	}
	if e, ok := s["enum"].([]any); ok && len(e) > 0 {
		return e[0]
	}
	for _, k := range []string{"anyOf", "oneOf", "allOf"} {
		if alts, ok := s[k].([]any); ok && len(alts) > 0 {
			if k == "allOf" {
				return f.fill(merged(alts), name, depth+1)
			}
			for _, a := range alts {
				if m, ok := a.(map[string]any); ok && typeOf(m) != "null" {
					return f.fill(m, name, depth+1)
				}
			}
		}
	}
	switch typeOf(s) {
	case "object":
		obj := map[string]any{}
		props, _ := s["properties"].(map[string]any)
		for k, p := range props {
			if m, ok := p.(map[string]any); ok {
				obj[k] = f.fill(m, k, depth+1)
			}
		}
		// A required name with no schema of its own still gets a value.
		req, _ := s["required"].([]any)
		for _, r := range req {
			if k, ok := r.(string); ok && obj[k] == nil {
				obj[k] = "Fake " + k
			}
		}
		return obj
	case "array":
		n := min(max(num(s, "minItems", 1), 1), 64)
		if mx := num(s, "maxItems", math.Inf(1)); mx < n {
			n = max(mx, 0)
		}
		items, _ := s["items"].(map[string]any)
		out := make([]any, 0, int(n))
		for range int(n) {
			out = append(out, f.fill(items, name, depth+1))
		}
		return out
	case "integer":
		return int64(number(s, true))
	case "number":
		return number(s, false)
	case "boolean":
		return false
	case "null":
		return nil
	default: // a string, or no type at all
		v := "Fake " + name
		if mn := min(num(s, "minLength", 0), 4096); float64(len(v)) < mn {
			v += strings.Repeat("x", int(mn)-len(v))
		}
		if mx := num(s, "maxLength", math.Inf(1)); float64(len(v)) > mx {
			v = v[:int(max(mx, 0))]
		}
		return v
	}
}

// typeOf is a schema's type in lower case, the first that is not "null"
// when it lists several; "object" for a schema with properties or
// required names and no type.
func typeOf(s map[string]any) string {
	switch t := s["type"].(type) {
	case string:
		return strings.ToLower(t)
	case []any:
		for _, x := range t {
			if x, ok := x.(string); ok && strings.ToLower(x) != "null" {
				return strings.ToLower(x)
			}
		}
		return "null"
	}
	for _, k := range []string{"properties", "required"} {
		if _, ok := s[k]; ok {
			return "object"
		}
	}
	return ""
}

// number is 1 for an integer and 0 for a number, moved into the
// schema's bounds (inclusive or exclusive).
func number(s map[string]any, integer bool) float64 {
	v := 0.0
	if integer {
		v = 1
	}
	if mn, ok := s["minimum"].(float64); ok && v < mn {
		v = mn
	}
	if mn, ok := s["exclusiveMinimum"].(float64); ok && v <= mn {
		v = mn + 1
		if !integer {
			v = mn + 0.5
		}
	}
	if mx, ok := s["maximum"].(float64); ok && v > mx {
		v = mx
	}
	if mx, ok := s["exclusiveMaximum"].(float64); ok && v >= mx {
		v = mx - 1
		if !integer {
			v = mx - 0.5
		}
	}
	if integer {
		v = math.Ceil(v)
	}
	return v
}

// num reads a numeric keyword; OpenAPI schemas write some as strings.
func num(s map[string]any, key string, def float64) float64 {
	switch v := s[key].(type) {
	case float64:
		return v
	case string:
		var f float64
		if json.Unmarshal([]byte(v), &f) == nil {
			return f
		}
	}
	return def
}

// merged is allOf's schemas as one: their properties and required lists
// joined, the first type kept.
func merged(alts []any) map[string]any {
	out := map[string]any{}
	props := map[string]any{}
	var req []any
	for _, a := range alts {
		m, ok := a.(map[string]any)
		if !ok {
			continue
		}
		for k, v := range m {
			if _, ok := out[k]; !ok && k != "properties" && k != "required" {
				out[k] = v
			}
		}
		if p, ok := m["properties"].(map[string]any); ok {
			for k, v := range p {
				props[k] = v
			}
		}
		if r, ok := m["required"].([]any); ok {
			req = append(req, r...)
		}
	}
	if len(props) > 0 {
		out["properties"] = props
	}
	if req != nil {
		out["required"] = req
	}
	return out
}

// pointer resolves a "#/..." JSON pointer in root.
func pointer(root map[string]any, ref string) any {
	if !strings.HasPrefix(ref, "#") {
		return nil
	}
	var cur any = root
	for _, tok := range strings.Split(strings.TrimPrefix(ref, "#"), "/")[1:] {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		m, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = m[tok]
	}
	return cur
}
