package server

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// TestOpenAPIRoutes: openapi.json describes every route of the router
// and no other, each with responses, and every $ref it makes resolves.
func TestOpenAPIRoutes(t *testing.T) {
	t.Parallel()
	var doc struct {
		OpenAPI    string                                `json:"openapi"`
		Paths      map[string]map[string]json.RawMessage `json:"paths"`
		Components struct {
			Schemas map[string]json.RawMessage `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(openAPIDoc, &doc); err != nil {
		t.Fatalf("openapi.json: %v", err)
	}
	if doc.OpenAPI != "3.1.0" {
		t.Errorf("openapi %q", doc.OpenAPI)
	}
	s := &Server{}
	routes := map[string]bool{}
	for _, rt := range s.routeTable() {
		path := strings.TrimSuffix(rt.path, "{$}") // "/{$}" is "/"
		if path == "" {
			path = "/"
		}
		key := strings.ToLower(rt.method) + " " + path
		routes[key] = true
		op, ok := doc.Paths[path][strings.ToLower(rt.method)]
		if !ok {
			t.Errorf("route %s %s is not in openapi.json", rt.method, path)
			continue
		}
		var o struct {
			Responses map[string]json.RawMessage `json:"responses"`
			Security  *[]any                     `json:"security"`
		}
		json.Unmarshal(op, &o)
		if len(o.Responses) == 0 {
			t.Errorf("%s has no responses", key)
		}
		if public := o.Security != nil && len(*o.Security) == 0; public == rt.auth {
			t.Errorf("%s: the document's security (public %v) is not the route's (auth %v)", key, public, rt.auth)
		}
	}
	for path, item := range doc.Paths {
		for method := range item {
			if method == "parameters" {
				continue
			}
			if !routes[method+" "+path] {
				t.Errorf("openapi.json describes %s %s, which is no route", strings.ToUpper(method), path)
			}
		}
	}
	var refs []string
	var walk func(any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, x := range v {
				if s, ok := x.(string); ok && k == "$ref" {
					refs = append(refs, s)
				}
				walk(x)
			}
		case []any:
			for _, x := range v {
				walk(x)
			}
		}
	}
	var all any
	json.Unmarshal(openAPIDoc, &all)
	walk(all)
	for _, ref := range refs {
		name, ok := strings.CutPrefix(ref, "#/components/schemas/")
		if _, found := doc.Components.Schemas[name]; !ok || !found {
			t.Errorf("unresolved $ref %s", ref)
		}
	}
	if !slices.Contains(refs, "#/components/schemas/Event") {
		t.Error("the event stream's schema is not referenced")
	}
}
