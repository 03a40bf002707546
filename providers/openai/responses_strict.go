package openai

import (
	"encoding/json"
	"slices"
)

// strictAllowed reports whether a tool's schema can be sent with
// strict: true, which makes the model's arguments always match it. Strict
// mode (OpenAI's structured outputs) takes a subset of JSON Schema: every
// object lists all its properties in required and sets
// additionalProperties to false, and only the keywords below appear. A
// schema outside that subset is sent with strict: false, as it is: the
// agent validates the arguments anyway, and rewriting the schema (making
// optional properties nullable) would change what the tool accepts.
func strictAllowed(schema json.RawMessage) bool {
	var root map[string]any
	if json.Unmarshal(schema, &root) != nil {
		return false
	}
	if root["type"] != "object" {
		return false // the root must be an object, not anyOf
	}
	return strictNode(root, 0)
}

// strictKeywords are the keywords strict mode supports.
var strictKeywords = map[string]bool{
	"type": true, "properties": true, "required": true, "additionalProperties": true,
	"items": true, "enum": true, "const": true, "anyOf": true, "description": true, "title": true,
	"$ref": true, "$defs": true, "definitions": true,
	"pattern": true, "format": true,
	"minimum": true, "maximum": true, "exclusiveMinimum": true, "exclusiveMaximum": true, "multipleOf": true,
	"minItems": true, "maxItems": true,
}

// strictFormats are the string formats strict mode supports.
var strictFormats = []string{"date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"}

// maxStrictDepth bounds the walk: strict mode allows 10 levels of nesting.
const maxStrictDepth = 10

func strictNode(node map[string]any, depth int) bool {
	if depth > maxStrictDepth {
		return false
	}
	for k := range node {
		if !strictKeywords[k] {
			return false
		}
	}
	if f, ok := node["format"]; ok {
		s, _ := f.(string)
		if !slices.Contains(strictFormats, s) {
			return false
		}
	}
	if isObjectType(node["type"]) {
		if node["additionalProperties"] != false {
			return false
		}
		props, _ := node["properties"].(map[string]any)
		if _, ok := node["properties"]; ok && props == nil {
			return false
		}
		req, _ := node["required"].([]any)
		if len(req) != len(props) {
			return false
		}
		for _, r := range req {
			name, _ := r.(string)
			if _, ok := props[name]; !ok {
				return false
			}
		}
		for _, v := range props {
			if !strictChild(v, depth) {
				return false
			}
		}
	}
	if items, ok := node["items"]; ok && !strictChild(items, depth) {
		return false
	}
	if anyOf, ok := node["anyOf"]; ok {
		list, _ := anyOf.([]any)
		if len(list) == 0 {
			return false
		}
		for _, v := range list {
			if !strictChild(v, depth) {
				return false
			}
		}
	}
	for _, defsKey := range []string{"$defs", "definitions"} {
		if defs, ok := node[defsKey]; ok {
			m, _ := defs.(map[string]any)
			if m == nil {
				return false
			}
			for _, v := range m {
				if !strictChild(v, depth) {
					return false
				}
			}
		}
	}
	return true
}

func strictChild(v any, depth int) bool {
	m, ok := v.(map[string]any)
	return ok && strictNode(m, depth+1)
}

// isObjectType reports whether a type keyword names "object" (alone or in
// a list such as ["object", "null"]).
func isObjectType(t any) bool {
	switch t := t.(type) {
	case string:
		return t == "object"
	case []any:
		return slices.Contains(t, any("object"))
	}
	return false
}
