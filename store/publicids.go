package store

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/subtle"
	"encoding/binary"
	"encoding/hex"
)

// Public identifiers are what the API shows of a row's id: the id encrypted, with its kind, under a key
// derived from the installation's secret key. They are opaque and not sequential, so that no one learns
// from an identifier how many rows an installation holds; one kind's identifier never reads as another
// kind's (a document's id is no file id); a garbled or guessed identifier reads as unknown; and they
// need no column, so a copy of the database under the same secret key (a move to another store
// included) keeps every identifier already handed out.
//
// The plaintext is one AES block: the id (8 bytes), the kind (1 byte) and 7 zero bytes. Decrypting
// anything but an identifier made here gives random bytes, which pass the kind and zero checks once in
// 2^64 tries.

// IDKind says what a public identifier names.
type IDKind byte

// The kinds of public identifier.
const (
	KindDocument   IDKind = iota + 1
	KindFile              // a file of a document
	KindHistory           // an entry of a document's history
	KindEvent             // a states-report event
	KindEmail             // an e-mail record
	KindConnection        // an external connection
	KindEntity            // an entity, as a connection names it
	KindDelivery          // a webhook event (its webhook-id)
)

// publicIDLen is the length of a public identifier: 16 bytes in lowercase hex.
const publicIDLen = 32

// publicIDs encodes and decodes public identifiers.
type publicIDs struct{ block cipher.Block }

func newPublicIDs(key []byte) *publicIDs {
	block, err := aes.NewCipher(key)
	if err != nil {
		panic(err) // the key is a 32-byte MAC: always a valid AES-256 key
	}
	return &publicIDs{block: block}
}

func (p *publicIDs) encode(kind IDKind, id int64) string {
	var b [aes.BlockSize]byte
	binary.BigEndian.PutUint64(b[:8], uint64(id))
	b[8] = byte(kind)
	p.block.Encrypt(b[:], b[:])
	return hex.EncodeToString(b[:])
}

var publicIDCheck = [aes.BlockSize - 8]byte{} // what follows the id once decrypted: the kind, then zeros

func (p *publicIDs) decode(kind IDKind, public string) (int64, bool) {
	var b [aes.BlockSize]byte
	if len(public) != publicIDLen {
		return 0, false
	}
	if _, err := hex.Decode(b[:], []byte(public)); err != nil {
		return 0, false
	}
	p.block.Decrypt(b[:], b[:])
	check := publicIDCheck
	check[0] = byte(kind)
	id := int64(binary.BigEndian.Uint64(b[:8]))
	if subtle.ConstantTimeCompare(b[8:], check[:]) != 1 || id <= 0 {
		return 0, false
	}
	return id, true
}

// PublicID is the public identifier of a row of a kind.
func (s *Store) PublicID(kind IDKind, id int64) string { return s.ids.encode(kind, id) }

// ParsePublicID reads a public identifier of a kind back into a row id; ErrNotFound when it is not one
// this installation made for that kind.
func (s *Store) ParsePublicID(kind IDKind, public string) (int64, error) {
	return parsePublicID(s.ids, kind, public)
}

// ParsePublicID reads a public identifier of a kind back into a row id; ErrNotFound when it is not one
// this installation made for that kind.
func (t *Tx) ParsePublicID(kind IDKind, public string) (int64, error) {
	return parsePublicID(t.ids, kind, public)
}

func parsePublicID(p *publicIDs, kind IDKind, public string) (int64, error) {
	id, ok := p.decode(kind, public)
	if !ok {
		return 0, ErrNotFound
	}
	return id, nil
}
