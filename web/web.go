// Package web holds the portal's pages: HTML templates, static files (CSS and a little JavaScript of
// our own) and the typed view models the templates render. It knows nothing of the store, of routing or
// of Echo: a handler builds a view model and asks the Renderer for the page.
//
// Every template is parsed once per language with `t` bound to that language's catalogue, so a page
// says {{t "nav.issued"}} and the words come from the caller's catalogue.
package web

import (
	"bytes"
	"embed"
	"fmt"
	"html/template"
	"io"
	"io/fs"
	"path"
	"strings"
)

//go:embed templates/*.html static/*
var files embed.FS

// Translate is the catalogue lookup the templates call as `t`.
type Translate func(lang, key string, args ...any) string

// Renderer renders the pages in every language.
type Renderer struct {
	pages map[string]map[string]*template.Template // language → page name → template
}

// Languages the pages are rendered in.
var Languages = []string{"pt", "en"}

// New parses every page with the layout, once per language.
func New(translate Translate) (*Renderer, error) {
	names, err := fs.Glob(files, "templates/*.html")
	if err != nil {
		return nil, err
	}
	r := &Renderer{pages: map[string]map[string]*template.Template{}}
	for _, lang := range Languages {
		funcs := template.FuncMap{
			"t":    func(key string, args ...any) string { return translate(lang, key, args...) },
			"lang": func() string { return lang },
		}
		base, err := template.New("layout").Funcs(funcs).ParseFS(files, "templates/layout.html")
		if err != nil {
			return nil, err
		}
		r.pages[lang] = map[string]*template.Template{}
		for _, name := range names {
			page := strings.TrimSuffix(path.Base(name), ".html")
			if page == "layout" {
				continue
			}
			t, err := template.Must(base.Clone()).ParseFS(files, name)
			if err != nil {
				return nil, err
			}
			r.pages[lang][page] = t
		}
	}
	return r, nil
}

// Render writes page in lang with the view model v. The page is rendered to a buffer first, so that a
// template error never leaves half a page behind.
func (r *Renderer) Render(w io.Writer, lang, page string, v any) error {
	pages, ok := r.pages[lang]
	if !ok {
		pages = r.pages["pt"]
	}
	t, ok := pages[page]
	if !ok {
		return fmt.Errorf("web: no page %q", page)
	}
	var buf bytes.Buffer
	if err := t.ExecuteTemplate(&buf, "layout", v); err != nil {
		return fmt.Errorf("web: rendering %s: %w", page, err)
	}
	_, err := buf.WriteTo(w)
	return err
}

// Pages lists the page names, for tests.
func (r *Renderer) Pages() []string {
	var out []string
	for name := range r.pages["pt"] {
		out = append(out, name)
	}
	return out
}

// Static is the folder of static files (served under /portal/static/).
func Static() fs.FS {
	sub, err := fs.Sub(files, "static")
	if err != nil {
		panic(err)
	}
	return sub
}
