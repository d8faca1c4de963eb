package server

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Form fields in the incumbent's bracket notation ("lines[0][taxes][0][tax_percent]",
// "additional_emails[]") become the nested objects and lists a JSON body would carry, so that both
// bodies decode into the same structure.

// bracketTree turns form values into nested maps and lists. "a[]" appends; "a[0]", "a[1]" are list
// items in index order (gaps closed); a field sent twice without brackets keeps its last value.
func bracketTree(values map[string][]string) (map[string]any, error) {
	root := map[string]any{}
	for _, key := range slices.Sorted(maps.Keys(values)) {
		path, err := splitBrackets(key)
		if err != nil {
			return nil, err
		}
		for _, v := range values[key] {
			if err := place(root, path, key, v); err != nil {
				return nil, err
			}
		}
	}
	out := make(map[string]any, len(root))
	for k, v := range root { // the top level is always a group, even when every name is a number
		out[k] = listify(v)
	}
	return out, nil
}

// splitBrackets splits "a[b][0][]" into a, b, 0 and "" (append).
func splitBrackets(key string) ([]string, error) {
	name, rest, _ := strings.Cut(key, "[")
	if name == "" {
		return nil, fmt.Errorf("field %q has no name", key)
	}
	if strings.ContainsFunc(key, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
		return nil, fmt.Errorf("field %q has a control character", key)
	}
	path := []string{name}
	if rest == "" && !strings.Contains(key, "[") {
		return path, nil
	}
	rest = "[" + rest
	for rest != "" {
		if rest[0] != '[' {
			return nil, fmt.Errorf("field %q is not in bracket notation", key)
		}
		end := strings.IndexByte(rest, ']')
		if end < 0 {
			return nil, fmt.Errorf("field %q has an unclosed bracket", key)
		}
		if strings.Contains(rest[1:end], "[") {
			return nil, fmt.Errorf("field %q has a bracket inside brackets", key)
		}
		path = append(path, rest[1:end])
		rest = rest[end+1:]
	}
	if len(path) > 8 {
		return nil, fmt.Errorf("field %q is nested too deeply", key)
	}
	return path, nil
}

// appendKey marks items added with "[]": they sort after explicit indexes, in the order sent.
const appendKey = "\x00"

func place(node map[string]any, path []string, key, value string) error {
	for i, seg := range path {
		last := i == len(path)-1
		if seg == "" {
			if !last {
				return fmt.Errorf("field %q: [] must come last", key)
			}
			for k := range node {
				if k != appendKey && !isIndex(k) {
					return fmt.Errorf("field %q mixes [] with named fields", key)
				}
			}
			list, _ := node[appendKey].([]string)
			node[appendKey] = append(list, value)
			return nil
		}
		if _, appended := node[appendKey]; appended && !isIndex(seg) {
			return fmt.Errorf("field %q mixes [] with named fields", key)
		}
		if last {
			if _, isMap := node[seg].(map[string]any); isMap {
				return fmt.Errorf("field %q is both a value and a group", key)
			}
			node[seg] = value
			return nil
		}
		child, ok := node[seg].(map[string]any)
		if !ok {
			if _, isValue := node[seg]; isValue {
				return fmt.Errorf("field %q is both a value and a group", key)
			}
			child = map[string]any{}
			node[seg] = child
		}
		node = child
	}
	return nil
}

// isIndex reports whether a bracket segment is a list index: a number from 0 to 10,000 written
// without leading zeros ("01" is a name, not the index 1).
func isIndex(seg string) bool {
	n, err := strconv.Atoi(seg)
	return err == nil && n >= 0 && n <= 10000 && strconv.Itoa(n) == seg
}

// listify turns maps whose keys are all indexes (or appended items) into lists.
func listify(v any) any {
	m, ok := v.(map[string]any)
	if !ok {
		return v
	}
	appended, _ := m[appendKey].([]string)
	indexes := make([]int, 0, len(m))
	allIndexes := true
	for k := range m {
		if k == appendKey {
			continue
		}
		if !isIndex(k) {
			allIndexes = false
			break
		}
		n, _ := strconv.Atoi(k)
		indexes = append(indexes, n)
	}
	if allIndexes && (len(indexes) > 0 || len(appended) > 0) {
		sort.Ints(indexes)
		list := make([]any, 0, len(indexes)+len(appended))
		for _, n := range indexes {
			list = append(list, listify(m[strconv.Itoa(n)]))
		}
		for _, a := range appended {
			list = append(list, a)
		}
		return list
	}
	out := make(map[string]any, len(m))
	for k, val := range m {
		if k != appendKey {
			out[k] = listify(val)
		}
	}
	return out
}

// decodeInto decodes a JSON body or a bracket tree into v, once checkJSONShape has bounded it. A value
// of the wrong shape is a field error named as the form would name it ("lines[0][taxes]").
func decodeInto(body []byte, v any) error {
	if err := checkJSONShape(body, v); err != nil {
		if errors.Is(err, errJSONSyntax) {
			return fieldError("body", CodeInvalidValue)
		}
		return err
	}
	var typeErr *json.UnmarshalTypeError
	if err := json.Unmarshal(body, v); errors.As(err, &typeErr) {
		return fieldError(bracketName(typeErr.Field), CodeInvalidValue)
	} else if err != nil {
		return fieldError("body", CodeInvalidValue)
	}
	return nil
}

// bracketName writes a JSON field path ("lines.0.taxes") in bracket notation ("lines[0][taxes]").
func bracketName(path string) string {
	parts := strings.Split(path, ".")
	name := parts[0]
	for _, p := range parts[1:] {
		name += "[" + p + "]"
	}
	return name
}

// text is a value sent as a string, a number or a boolean (form fields are all strings; JSON bodies
// may carry numbers), kept as written.
type text string

func (t *text) UnmarshalJSON(b []byte) error {
	s := strings.TrimSpace(string(b))
	switch {
	case s == "null":
		*t = ""
	case strings.HasPrefix(s, `"`):
		var v string
		if err := json.Unmarshal(b, &v); err != nil {
			return err
		}
		*t = text(strings.TrimSpace(v))
	case strings.HasPrefix(s, "{"), strings.HasPrefix(s, "["):
		return &json.UnmarshalTypeError{Value: "object", Type: reflect.TypeOf("")}
	default:
		*t = text(s)
	}
	return nil
}

// flag reads 1/0, true/false (empty is false).
func (t text) flag() (bool, bool) {
	switch strings.ToLower(string(t)) {
	case "", "0", "false":
		return false, true
	case "1", "true":
		return true, true
	}
	return false, false
}
