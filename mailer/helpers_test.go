package mailer

import (
	"bytes"
	"encoding/base64"
	"io"
	"mime/quotedprintable"
	"testing"
)

func decodeBase64(t *testing.T, data []byte) []byte {
	t.Helper()
	out, err := io.ReadAll(base64.NewDecoder(base64.StdEncoding, bytes.NewReader(data)))
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func quotedPrintable(data []byte) io.Reader { return quotedprintable.NewReader(bytes.NewReader(data)) }

func b64(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
