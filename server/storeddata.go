package server

import (
	"encoding/json"
	"errors"
	"fmt"

	"einvoice/ubl"
)

// The stored form of a document's data (store.Document.Data): the model the API's views, the e-mails and
// the rendered PDF are made from, and the language the document was issued in, which its rendered PDF
// uses whoever asks for it. It is JSON in fixed keys (the model's json tags, pinned by a golden test)
// inside an envelope that names its version, so that renaming a Go field can never change or empty
// what is stored. Rows written before the envelope existed hold the model alone, in the same keys:
// they read as version 1, in Portuguese.

// storedDataVersion is the version of the form written now.
const storedDataVersion = 1

// storedData is the envelope, with the model itself (one encoding or decoding pass).
type storedData[D any] struct {
	Version  int    `json:"version"`
	Lang     string `json:"lang"`
	Document D      `json:"document"`
}

// encodeDocumentData is the stored form of a model issued in lang; the attachments' content is left
// out (the files are kept apart).
func encodeDocumentData(m *ubl.Document, lang string) ([]byte, error) {
	stored := *m
	stored.Attachments = make([]ubl.Attachment, len(m.Attachments))
	for i, a := range m.Attachments {
		a.Content = ""
		stored.Attachments[i] = a
	}
	return json.Marshal(storedData[*ubl.Document]{Version: storedDataVersion, Lang: lang, Document: &stored})
}

// decodeDocumentData reads the stored form back: the model and the language of the document. The
// envelope and the model are read in one pass; only a row of the model alone is read twice.
func decodeDocumentData(raw []byte) (*ubl.Document, string, error) {
	var env storedData[*ubl.Document]
	if err := json.Unmarshal(raw, &env); err != nil {
		return nil, "", fmt.Errorf("the stored document data: %w", err)
	}
	switch {
	case env.Version == 0 && env.Document == nil: // the model alone, as first stored
		env.Document, env.Lang = new(ubl.Document), "pt"
		if err := json.Unmarshal(raw, env.Document); err != nil {
			return nil, "", fmt.Errorf("the stored document data: %w", err)
		}
	case env.Version != storedDataVersion:
		return nil, "", fmt.Errorf("the stored document data has version %d; this program reads %d", env.Version, storedDataVersion)
	case env.Document == nil:
		return nil, "", errors.New("the stored document data has no document")
	}
	return env.Document, env.Lang, nil
}
