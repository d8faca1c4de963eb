package server

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"einvoice/ubl"

	"github.com/shopspring/decimal"
)

// The golden files of the stored form of a document's data. Never edit them: rows in this form exist.
// A change of the form is a new version, with a golden file of its own beside these and a reader of
// the old one.
const (
	goldenDataUnversioned = "testdata/document-data-unversioned.json" // the model alone, as first stored
	goldenDataV1          = "testdata/document-data-v1.json"
)

// fullDocument is a model with every field set (each text to its path, each amount to a value of its
// own, one element in each list), so that a field the stored form loses shows.
func fullDocument() *ubl.Document {
	var d ubl.Document
	n := 0
	fillValue(reflect.ValueOf(&d).Elem(), "Document", &n)
	return &d
}

var decimalType = reflect.TypeOf(decimal.Decimal{})

func fillValue(v reflect.Value, path string, n *int) {
	if v.Type() == decimalType {
		*n++
		v.Set(reflect.ValueOf(decimal.New(int64(*n)*1001, -2)))
		return
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString(path)
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fillValue(v.Elem(), path, n)
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 1, 1))
		fillValue(v.Index(0), path+"[0]", n)
	case reflect.Struct:
		for i := range v.NumField() {
			fillValue(v.Field(i), path+"."+v.Type().Field(i).Name, n)
		}
	default:
		panic("fullDocument cannot fill " + path + " of kind " + v.Kind().String())
	}
}

// withoutContent is the model as stored: the attachments' content is kept apart.
func withoutContent(d *ubl.Document) *ubl.Document {
	out := *d
	out.Attachments = append([]ubl.Attachment{}, d.Attachments...)
	for i := range out.Attachments {
		out.Attachments[i].Content = ""
	}
	return &out
}

func sameModel(t *testing.T, what string, got, want *ubl.Document) {
	t.Helper()
	g, _ := json.Marshal(got)
	w, _ := json.Marshal(want)
	if !bytes.Equal(g, w) {
		t.Fatalf("%s: the model read back differs:\n got %s\nwant %s", what, g, w)
	}
}

// Every field of the model, at every depth, has a json tag of its own: the stored form never depends
// on a Go field name.
func TestEveryModelFieldHasAJSONTag(t *testing.T) {
	seen := map[reflect.Type]bool{}
	var walk func(reflect.Type)
	walk = func(ty reflect.Type) {
		for ty.Kind() == reflect.Pointer || ty.Kind() == reflect.Slice {
			ty = ty.Elem()
		}
		if ty.Kind() != reflect.Struct || ty == decimalType || seen[ty] {
			return
		}
		seen[ty] = true
		for i := range ty.NumField() {
			f := ty.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "" || name == "-" {
				t.Errorf("%s.%s has no json tag", ty.Name(), f.Name)
			}
			walk(f.Type)
		}
	}
	walk(reflect.TypeOf(ubl.Document{}))
}

// The form written now is exactly the golden one: renaming a field or its tag fails here, not in the
// rows of an installation.
func TestStoredDocumentDataIsPinned(t *testing.T) {
	got, err := encodeDocumentData(fullDocument(), "en")
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(goldenDataV1)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, bytes.TrimSpace(want)) {
		t.Fatalf("the stored form changed; it must stay %s:\n%s", goldenDataV1, got)
	}
}

// Rows of every form keep reading, every field intact: the unversioned rows as Portuguese documents,
// the versioned ones with their language. A version this program does not know is an error, never an
// empty document.
func TestStoredDocumentDataReadsEveryForm(t *testing.T) {
	want := withoutContent(fullDocument())
	for file, lang := range map[string]string{goldenDataUnversioned: "pt", goldenDataV1: "en"} {
		raw, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		m, gotLang, err := decodeDocumentData(raw)
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		if gotLang != lang {
			t.Errorf("%s: language %q, want %q", file, gotLang, lang)
		}
		sameModel(t, filepath.Base(file), m, want)
	}
	for _, bad := range []string{`{"version": 2, "lang": "pt", "document": {}}`, `[]`, `{"version": 1, "document": "x"}`, `{"version": 1, "lang": "pt"}`} {
		if _, _, err := decodeDocumentData([]byte(bad)); err == nil {
			t.Errorf("%s read without an error", bad)
		}
	}
}
