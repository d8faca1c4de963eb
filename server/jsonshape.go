package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"reflect"
	"strconv"
	"strings"
	"sync"
)

// A JSON body is checked against the type it will be decoded into before any of it is decoded, in one
// pass that allocates nothing, so that what decoding costs is bounded by the body's size, whatever its
// shape:
//   - a list holds at most its field's `max` tag (lines: 10,000; files: 20 …) or defaultMaxItems
//     items;
//   - the whole body holds at most maxBodyItems list items, nested at most maxJSONDepth deep;
//   - a field the type does not have, and an object or a list where the type has a single value, are
//     refused with their full name ("lines[3][colour]").
// The first finding ends the pass, and the request.

const (
	defaultMaxItems = 1000
	maxBodyItems    = 100_000
	maxJSONDepth    = 32
)

var errJSONSyntax = errors.New("json: syntax error")

// checkJSONShape checks data against the type of v (a pointer to what it will be decoded into).
func checkJSONShape(data []byte, v any) error {
	s := shapeScanner{data: data, path: make([]pathStep, 0, maxJSONDepth+1)}
	return s.value(reflect.TypeOf(v), defaultMaxItems)
}

type shapeScanner struct {
	data  []byte
	pos   int
	items int        // list items so far
	depth int        // objects and lists open
	path  []pathStep // to the value being scanned, to name it in an error
}

// pathStep is a field's name as written, or (key nil) a list item's index.
type pathStep struct {
	key   []byte
	index int
}

// name writes the path in bracket notation: lines[3][taxes].
func (s *shapeScanner) name() string {
	if len(s.path) == 0 {
		return "body"
	}
	var b strings.Builder
	for i, p := range s.path {
		seg := strconv.Itoa(p.index)
		if p.key != nil {
			seg = unquoteKey(p.key)
		}
		if i > 0 {
			seg = "[" + seg + "]"
		}
		b.WriteString(seg)
	}
	return b.String()
}

// value scans one value that is to decode into t (nil: anything); max bounds it when it is a list.
func (s *shapeScanner) value(t reflect.Type, max int) error {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	s.space()
	if s.pos >= len(s.data) {
		return errJSONSyntax
	}
	switch s.data[s.pos] {
	case '{':
		if t != nil && t.Kind() != reflect.Struct && t.Kind() != reflect.Map && t.Kind() != reflect.Interface {
			return fieldError(s.name(), CodeInvalidValue)
		}
		return s.object(t)
	case '[':
		if t != nil && t.Kind() != reflect.Slice && t.Kind() != reflect.Array && t.Kind() != reflect.Interface {
			return fieldError(s.name(), CodeInvalidValue)
		}
		return s.list(t, max)
	case '"':
		_, err := s.str()
		return err
	}
	for s.pos < len(s.data) { // a number, true, false or null: json.Unmarshal checks which
		switch s.data[s.pos] {
		case ',', ']', '}', ' ', '\t', '\n', '\r':
			return nil
		}
		s.pos++
	}
	return nil
}

func (s *shapeScanner) object(t reflect.Type) error {
	more, err := s.enter('}')
	for more {
		s.space()
		if s.pos >= len(s.data) || s.data[s.pos] != '"' {
			return errJSONSyntax
		}
		var key []byte
		if key, err = s.str(); err != nil {
			return err
		}
		s.space()
		if s.pos >= len(s.data) || s.data[s.pos] != ':' {
			return errJSONSyntax
		}
		s.pos++
		s.path = append(s.path, pathStep{key: key})
		var ft reflect.Type
		max := defaultMaxItems
		switch {
		case t == nil || t.Kind() == reflect.Interface:
		case t.Kind() == reflect.Map:
			ft = t.Elem()
		default:
			f, ok := fieldOf(t, key)
			if !ok {
				return fieldError(s.name(), CodeUnknownField)
			}
			ft, max = f.typ, f.max
		}
		if err = s.value(ft, max); err != nil {
			return err
		}
		s.path = s.path[:len(s.path)-1]
		if more, err = s.next('}'); err != nil {
			return err
		}
	}
	return err
}

func (s *shapeScanner) list(t reflect.Type, max int) error {
	var elem reflect.Type
	if t != nil && t.Kind() != reflect.Interface {
		elem = t.Elem()
	}
	more, err := s.enter(']')
	s.path = append(s.path, pathStep{})
	for n := 1; more; n++ {
		if n > max {
			s.path = s.path[:len(s.path)-1] // the error names the list
			return fieldError(s.name(), CodeInvalidValue)
		}
		if s.items++; s.items > maxBodyItems {
			return fieldError("body", CodeInvalidValue)
		}
		s.path[len(s.path)-1].index = n - 1
		if err = s.value(elem, defaultMaxItems); err != nil {
			return err
		}
		if more, err = s.next(']'); err != nil {
			return err
		}
	}
	s.path = s.path[:len(s.path)-1]
	return err
}

// enter moves into an object or a list: more is false when it is empty (and already left).
func (s *shapeScanner) enter(closing byte) (more bool, err error) {
	s.pos++
	if s.depth++; s.depth > maxJSONDepth {
		return false, fieldError("body", CodeInvalidValue)
	}
	s.space()
	if s.pos < len(s.data) && s.data[s.pos] == closing {
		s.pos++
		s.depth--
		return false, nil
	}
	return true, nil
}

// next moves past what follows an item: more is true after a comma, false after the closing bracket.
func (s *shapeScanner) next(closing byte) (more bool, err error) {
	s.space()
	if s.pos >= len(s.data) {
		return false, errJSONSyntax
	}
	switch s.data[s.pos] {
	case ',':
		s.pos++
		return true, nil
	case closing:
		s.pos++
		s.depth--
		return false, nil
	}
	return false, errJSONSyntax
}

func (s *shapeScanner) space() {
	for s.pos < len(s.data) {
		switch s.data[s.pos] {
		case ' ', '\t', '\n', '\r':
			s.pos++
		default:
			return
		}
	}
}

// str moves past a string and returns its content as written (escapes undone only when needed, by
// unquoteKey).
func (s *shapeScanner) str() ([]byte, error) {
	start := s.pos + 1
	for i := start; i < len(s.data); {
		j := bytes.IndexAny(s.data[i:], `"\`)
		if j < 0 {
			break
		}
		i += j
		if s.data[i] == '\\' {
			i += 2
			continue
		}
		s.pos = i + 1
		return s.data[start:i], nil
	}
	return nil, errJSONSyntax
}

// unquoteKey is a field name with its escapes undone.
func unquoteKey(raw []byte) string {
	if bytes.IndexByte(raw, '\\') < 0 {
		return string(raw)
	}
	var k string
	if json.Unmarshal([]byte(`"`+string(raw)+`"`), &k) != nil {
		return string(raw)
	}
	return k
}

// jsonField is a struct field as JSON names it, with the most items it takes when it is a list.
type jsonField struct {
	name []byte
	typ  reflect.Type
	max  int
}

var jsonFields sync.Map // reflect.Type → []jsonField

// fieldOf finds the field a key decodes into as encoding/json does: the exact name, or else one equal
// under case folding.
func fieldOf(t reflect.Type, key []byte) (jsonField, bool) {
	fields := fieldsOf(t)
	if bytes.IndexByte(key, '\\') >= 0 {
		key = []byte(unquoteKey(key))
	}
	for _, f := range fields {
		if bytes.Equal(f.name, key) {
			return f, true
		}
	}
	for _, f := range fields {
		if bytes.EqualFold(f.name, key) {
			return f, true
		}
	}
	return jsonField{}, false
}

func fieldsOf(t reflect.Type) []jsonField {
	if f, ok := jsonFields.Load(t); ok {
		return f.([]jsonField)
	}
	var fields []jsonField
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		name, _, _ := strings.Cut(tag, ",")
		switch {
		case tag == "-" || !f.IsExported() && !f.Anonymous:
			continue
		case f.Anonymous && name == "" && f.Type.Kind() == reflect.Struct:
			fields = append(fields, fieldsOf(f.Type)...)
			continue
		case name == "":
			name = f.Name
		}
		max := defaultMaxItems
		if m, err := strconv.Atoi(f.Tag.Get("max")); err == nil {
			max = m
		}
		fields = append(fields, jsonField{name: []byte(name), typ: f.Type, max: max})
	}
	jsonFields.Store(t, fields)
	return fields
}

// presized is a list decoded into a slice of exactly its length, where encoding/json would grow one
// step by step and allocate several times its final size on the way.
type presized[T any] []T

func (p *presized[T]) UnmarshalJSON(b []byte) error {
	s := shapeScanner{data: b}
	s.space()
	if s.pos < len(s.data) && s.data[s.pos] == '[' {
		n := 0
		for more, err := s.enter(']'); more; more, err = s.next(']') {
			if err != nil {
				return err
			}
			if err = s.value(nil, math.MaxInt); err != nil {
				return err
			}
			n++
		}
		*p = make(presized[T], 0, n)
	}
	return json.Unmarshal(b, (*[]T)(p))
}
