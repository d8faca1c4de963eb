package taxid

import "testing"

func TestValidNIF(t *testing.T) {
	cases := []struct {
		nif  string
		want error
	}{
		{"500000000", nil},
		{"123456789", nil},
		{"508025338", nil},
		{"123456780", ErrNIFCheckDigit},
		{"12345678", ErrNIFLength},
		{"12345678a", ErrNIFLength},
		{"400000000", ErrNIFPrefix},
		{"450000001", nil},
		{"730000000", ErrNIFPrefix},
	}
	for _, c := range cases {
		if got := ValidNIF(c.nif); got != c.want {
			t.Errorf("ValidNIF(%q) = %v, want %v", c.nif, got, c.want)
		}
	}
}

func TestSplit(t *testing.T) {
	for in, want := range map[string][2]string{"PT500000000": {"PT", "500000000"}, "500000000": {"", "500000000"}, " pt1 ": {"PT", "1"}} {
		c, n := Split(in)
		if c != want[0] || n != want[1] {
			t.Errorf("Split(%q) = %q %q, want %q", in, c, n, want)
		}
	}
}
