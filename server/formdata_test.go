package server

import (
	"reflect"
	"testing"
)

// The cases FuzzFormData found: each is refused as a form error or read as the form says, never a
// panic or a value lost.
func TestBracketTreeEdgeCases(t *testing.T) {
	for _, c := range []struct {
		name   string
		values map[string][]string
		want   map[string]any // nil: refused
	}{
		{"a field named by a number", map[string][]string{"0": {"x"}}, map[string]any{"0": "x"}},
		{"an index with a leading zero is a name", map[string][]string{"a[00]": {"x"}}, map[string]any{"a": map[string]any{"00": "x"}}},
		{"indexes and a name with a leading zero", map[string][]string{"a[1]": {"x"}, "a[01]": {"y"}}, map[string]any{"a": map[string]any{"1": "x", "01": "y"}}},
		{"[] beside named fields", map[string][]string{"customer[]": {"x"}, "customer[name]": {"y"}}, nil},
		{"a control character in a name", map[string][]string{"\x00": {"x"}}, nil},
		{"appended after indexes", map[string][]string{"a[0]": {"x"}, "a[]": {"y", "z"}}, map[string]any{"a": []any{"x", "y", "z"}}},
	} {
		got, err := bracketTree(c.values)
		if c.want == nil {
			if err == nil {
				t.Errorf("%s: accepted as %v", c.name, got)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: %v %v, want %v", c.name, got, err, c.want)
		}
	}
}
