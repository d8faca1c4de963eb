package store

import "testing"

func TestDollarPlaceholders(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`SELECT 1`, `SELECT 1`},
		{`SELECT a FROM t WHERE b = ? AND c IN (?, ?)`, `SELECT a FROM t WHERE b = $1 AND c IN ($2, $3)`},
		{`SELECT '?', "a?b", ? -- is it?
			FROM t WHERE x = 'it''s?' AND y = ?`, `SELECT '?', "a?b", $1 -- is it?
			FROM t WHERE x = 'it''s?' AND y = $2`},
		{`SELECT ? || 'unterminated ?`, `SELECT $1 || 'unterminated ?`},
		{`SELECT ? -- to the end ?`, `SELECT $1 -- to the end ?`},
	} {
		if got := dollarPlaceholders(c.in); got != c.want {
			t.Errorf("%q:\n got %q\nwant %q", c.in, got, c.want)
		}
	}
}
