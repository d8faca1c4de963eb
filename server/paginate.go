package server

import (
	"strconv"

	"github.com/labstack/echo/v4"
)

// Page sizes of paginated lists.
const (
	DefaultRows = 15
	MaxRows     = 100
)

// page is a request's page and rows, validated.
type page struct{ number, rows int }

func (p page) offset() int { return (p.number - 1) * p.rows }

// pageOf reads page and rows from the query: positive integers, rows at most MaxRows.
func pageOf(c echo.Context) (page, error) {
	p := page{number: 1, rows: DefaultRows}
	errs := FieldErrors{}
	for name, dst := range map[string]*int{"page": &p.number, "rows": &p.rows} {
		v := c.QueryParam(name)
		if v == "" {
			continue
		}
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || name == "rows" && n > MaxRows {
			errs[name] = Problem{Code: CodeInvalidValue}
			continue
		}
		*dst = n
	}
	if len(errs) > 0 {
		return p, errs
	}
	return p, nil
}

// paginator is the list shape the spec shows for external connections (4.6), used by every list.
type paginator struct {
	CurrentPage int     `json:"current_page"`
	From        *int    `json:"from"`
	To          *int    `json:"to"`
	Total       int     `json:"total"`
	LastPage    int     `json:"last_page"`
	PerPage     int     `json:"per_page"`
	NextPageURL *string `json:"next_page_url"`
	PrevPageURL *string `json:"prev_page_url"`
	Data        any     `json:"data"`
}

// paginate makes the list's paginator; its page links start with the installation's public address.
func (s *Server) paginate(c echo.Context, p page, total, count int, data any) paginator {
	out := paginator{CurrentPage: p.number, Total: total, PerPage: p.rows, Data: data, LastPage: max(1, (total+p.rows-1)/p.rows)}
	if count > 0 {
		from, to := p.offset()+1, p.offset()+count
		out.From, out.To = &from, &to
	}
	link := func(n int) *string {
		u := *c.Request().URL
		q := u.Query()
		q.Set("page", strconv.Itoa(n))
		u.RawQuery = q.Encode()
		link := s.baseURL() + u.RequestURI()
		return &link
	}
	if p.number < out.LastPage {
		out.NextPageURL = link(p.number + 1)
	}
	if p.number > 1 {
		out.PrevPageURL = link(p.number - 1)
	}
	return out
}
