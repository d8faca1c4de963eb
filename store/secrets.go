package store

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"errors"
	"fmt"
)

// secretBox encrypts secrets that must be read back in clear (OAuth client secrets, needed to verify
// HMAC signatures) with AES-256-GCM under the installation's secret key.
type secretBox struct {
	aead   cipher.AEAD
	macKey [32]byte // the root of the keys MAC derives per purpose
}

// MinSecretKeyLen is the shortest secret key accepted.
const MinSecretKeyLen = 16

func newSecretBox(key []byte) (*secretBox, error) {
	if len(key) < MinSecretKeyLen {
		return nil, fmt.Errorf("secret key must be at least %d bytes", MinSecretKeyLen)
	}
	k := sha256.Sum256(append([]byte("einvoice secret box v1\x00"), key...))
	block, err := aes.NewCipher(k[:])
	if err != nil {
		return nil, err
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	return &secretBox{aead: aead, macKey: sha256.Sum256(append([]byte("einvoice mac v1\x00"), key...))}, nil
}

// mac is HMAC-SHA256 of msg under a key derived for the purpose.
func (b *secretBox) mac(purpose string, msg []byte) []byte {
	k := hmac.New(sha256.New, b.macKey[:])
	k.Write([]byte(purpose))
	m := hmac.New(sha256.New, k.Sum(nil))
	m.Write(msg)
	return m.Sum(nil)
}

func (b *secretBox) seal(plain []byte) []byte {
	nonce := make([]byte, b.aead.NonceSize(), b.aead.NonceSize()+len(plain)+b.aead.Overhead())
	rand.Read(nonce)
	return b.aead.Seal(nonce, nonce, plain, nil)
}

var errSecretKey = errors.New("stored secret cannot be decrypted: the secret key differs from the one it was stored with")

func (b *secretBox) open(sealed []byte) ([]byte, error) {
	n := b.aead.NonceSize()
	if len(sealed) < n {
		return nil, errSecretKey
	}
	plain, err := b.aead.Open(nil, sealed[:n], sealed[n:], nil)
	if err != nil {
		return nil, errSecretKey
	}
	return plain, nil
}

// HashToken is how platform and access tokens are kept: SHA-256 of the token. Tokens are 256-bit random
// values, so a plain hash is enough (no dictionary to guard against).
func HashToken(token string) []byte {
	h := sha256.Sum256([]byte(token))
	return h[:]
}

// RandomToken returns n random bytes as lowercase hex.
func RandomToken(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	const hex = "0123456789abcdef"
	out := make([]byte, 2*n)
	for i, c := range b {
		out[2*i], out[2*i+1] = hex[c>>4], hex[c&15]
	}
	return string(out)
}
