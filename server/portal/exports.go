package portal

import (
	"archive/zip"
	"encoding/csv"
	"net/http"
	"strconv"
	"strings"
	"time"

	"einvoice/server/i18n"
	"einvoice/store"

	"github.com/labstack/echo/v4"
)

// Exports: a list's filter as CSV. Rows are read a page at a time and written as they come, up to
// maxExportRows.

const (
	exportPage    = 500
	maxExportRows = 100_000
)

func (p *Portal) exportCSV(side string) echo.HandlerFunc {
	return func(c echo.Context) error {
		lang := current(c).lang
		a, _, err := p.base(c, "", "")
		if err != nil {
			return p.noEntity(c, err)
		}
		f, _ := listFilter(c.QueryParams(), side)
		f.Offset, f.Limit = 0, exportPage
		h := c.Response().Header()
		h.Set("Content-Type", "text/csv; charset=utf-8")
		h.Set("Content-Disposition", `attachment; filename="`+side+`.csv"`)
		c.Response().WriteHeader(http.StatusOK)
		w := csv.NewWriter(c.Response())
		party := "col.customer"
		if side == store.SideReceived {
			party = "col.supplier"
		}
		head := []string{}
		for _, k := range []string{"col.number", "col.type", "col.date", party, "list.nif", "col.amount", "col.currency", "col.state", "col.created"} {
			head = append(head, i18n.T(lang, k))
		}
		w.Write(head)
		for written := 0; written < maxExportRows; {
			docs, _, err := p.wf.ListDocuments(c.Request().Context(), a, f)
			if err != nil {
				return err // the answer has begun: the connection is cut and the log says why
			}
			for _, d := range docs {
				row := documentRow(d, side, lang)
				w.Write(cells(d.Number, row.Type, d.EmissionDate, row.Counterparty, row.TaxID, d.PayableAmount, d.Currency,
					row.StateLabel, d.CreatedAt))
			}
			written += len(docs)
			if len(docs) < f.Limit {
				break
			}
			f.Offset += f.Limit
		}
		w.Flush()
		return w.Error()
	}
}

// cells makes values safe to open in a spreadsheet: a value that a spreadsheet would read as a
// formula starts with an apostrophe.
func cells(values ...string) []string {
	for i, v := range values {
		if v != "" && strings.ContainsRune("=+-@\t\r", rune(v[0])) && !isNumber(v) {
			values[i] = "'" + v
		}
	}
	return values
}

func isNumber(v string) bool {
	v = strings.TrimPrefix(v, "-")
	if v == "" {
		return false
	}
	for _, ch := range v {
		if (ch < '0' || ch > '9') && ch != '.' {
			return false
		}
	}
	return true
}

// maxZIPDocuments bounds a ZIP export: each document brings its XML and its PDF (rendered on the way
// when it has none yet).
const maxZIPDocuments = 500

// exportZIP writes the XML and the PDF of every document of the list's filter into one ZIP file.
func (p *Portal) exportZIP(side string) echo.HandlerFunc {
	return func(c echo.Context) error {
		a, _, err := p.base(c, "", "")
		if err != nil {
			return p.noEntity(c, err)
		}
		ctx := c.Request().Context()
		f, _ := listFilter(c.QueryParams(), side)
		f.Offset, f.Limit = 0, maxZIPDocuments
		docs, _, err := p.wf.ListDocuments(ctx, a, f)
		if err != nil {
			return err
		}
		h := c.Response().Header()
		h.Set("Content-Type", "application/zip")
		h.Set("Content-Disposition", `attachment; filename="`+side+`.zip"`)
		c.Response().WriteHeader(http.StatusOK)
		z := zip.NewWriter(c.Response())
		used := map[string]bool{}
		for _, d := range docs {
			for _, kind := range []string{"xml", "pdf"} {
				file, err := p.wf.DocumentFile(ctx, a, d.PublicID, kind)
				if err != nil {
					return err // the answer has begun: the archive is cut short and the log says why
				}
				name := zipName(d.Number, kind, used)
				w, err := z.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Deflate, Modified: time.Now()})
				if err != nil {
					return err
				}
				if _, err := w.Write(file.Content); err != nil {
					return err
				}
			}
		}
		return z.Close()
	}
}

// zipName is a file name inside the archive made from a document number: path separators and other
// characters that are not safe in a file name become "-", and a name already used gets a counter.
func zipName(number, ext string, used map[string]bool) string {
	base := strings.Map(func(r rune) rune {
		if r < 32 || strings.ContainsRune(`/\:*?"<>|`, r) {
			return '-'
		}
		return r
	}, strings.TrimSpace(number))
	base = strings.TrimLeft(base, ".")
	if base == "" {
		base = "document"
	}
	name := base + "." + ext
	for i := 2; used[name]; i++ {
		name = base + "-" + strconv.Itoa(i) + "." + ext
	}
	used[name] = true
	return name
}
