package xsd

import (
	"encoding/base64"
	"math/rand/v2"
	"strings"
	"testing"
)

// base64Plain is base64Lexical written one byte at a time, as plainly as the rule reads: the fast
// version must agree with it.
func base64Plain(s string) bool {
	data, pad, last := 0, 0, int8(0)
	for i := 0; i < len(s); i++ {
		switch d := base64Values[s[i]]; {
		case d == base64Pad:
			pad++
		case d >= 0 && pad > 0:
			return false
		case d >= 0:
			data, last = data+1, d
		}
	}
	switch pad {
	case 0:
		return data%4 == 0
	case 1:
		return data%4 == 3 && last&^0x3c == 0
	case 2:
		return data%4 == 2 && last&^0x30 == 0
	}
	return false
}

func TestBase64LexicalAgreesWithThePlainReading(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const chars = "AQgw/+9z==== \n\r\t!é"
	valid := 0
	for range 200_000 {
		var b strings.Builder
		for n := rng.IntN(40); n > 0; n-- {
			b.WriteByte(chars[rng.IntN(len(chars))])
		}
		s := b.String()
		if got, want := base64Lexical(s), base64Plain(s); got != want {
			t.Fatalf("%q: %v, plainly %v", s, got, want)
		} else if got {
			valid++
		}
	}
	// Real encodings, with line breaks as MIME writes them, and then damaged.
	for n := range 300 {
		data := make([]byte, n)
		for i := range data {
			data[i] = byte(rng.IntN(256))
		}
		enc := base64.StdEncoding.EncodeToString(data)
		for i := 76; i < len(enc); i += 78 {
			enc = enc[:i] + "\r\n" + enc[i:]
		}
		if !base64Lexical(enc) {
			t.Fatalf("a real encoding of %d bytes refused", n)
		}
		if len(enc) > 4 {
			k := rng.IntN(len(enc))
			bad := enc[:k] + "=" + enc[k:]
			if got, want := base64Lexical(bad), base64Plain(bad); got != want {
				t.Fatalf("%q: %v, plainly %v", bad, got, want)
			}
		}
	}
	if valid < 1000 {
		t.Errorf("only %d random strings valid: the test says little", valid)
	}
}

// BenchmarkBase64Lexical is the check of a 1 MB attachment with MIME line breaks.
func BenchmarkBase64Lexical(b *testing.B) {
	data := make([]byte, 750_000)
	for i := range data {
		data[i] = byte(i * 7)
	}
	enc := base64.StdEncoding.EncodeToString(data)
	var s strings.Builder
	for i := 0; i < len(enc); i += 76 {
		s.WriteString(enc[i:min(i+76, len(enc))])
		s.WriteString("\n")
	}
	v := s.String()
	b.SetBytes(int64(len(v)))
	for b.Loop() {
		if !base64Lexical(v) {
			b.Fatal("refused")
		}
	}
}
