package signing

import (
	"bytes"
	"crypto"
	"crypto/rsa"
	"crypto/sha256"
	"math/big"
	"sync"

	"github.com/golang-fips/openssl/v2"
)

// A seal's RSA signatures are made by the system's OpenSSL (libcrypto 3), loaded when the first RSA
// seal is read, through github.com/golang-fips/openssl: it signs in about a third of the time of Go's
// constant-time RSA (`go test ./signing -bench SealSigns`). Where libcrypto.so.3 cannot be loaded, Go's
// crypto/rsa signs, as it does for keys held elsewhere (a remote provider's crypto.Signer).

// libcryptoLoaded loads libcrypto once and tells whether it can sign.
var libcryptoLoaded = sync.OnceValue(func() bool {
	return openssl.Init("libcrypto.so.3") == nil
})

// RSASigner names what makes the RSA signatures of seals held here: OpenSSL's version, or Go.
func RSASigner() string {
	if libcryptoLoaded() {
		return openssl.VersionText()
	}
	return "Go crypto/rsa"
}

// libcryptoKey is the OpenSSL copy of an RSA key, or nil when OpenSSL cannot sign with it: the key
// is not a local two-prime RSA key, libcrypto is absent, or OpenSSL's signature of a test digest
// differs from Go's (PKCS#1 v1.5 signatures are deterministic, so the two must agree byte for byte).
func libcryptoKey(signer crypto.Signer) *openssl.PrivateKeyRSA {
	k, ok := signer.(*rsa.PrivateKey)
	if !ok || len(k.Primes) != 2 || !libcryptoLoaded() {
		return nil
	}
	if k.Precomputed.Dp == nil {
		k.Precompute()
	}
	key, err := openssl.NewPrivateKeyRSA(bigInt(k.N), bigInt(big.NewInt(int64(k.E))), bigInt(k.D),
		bigInt(k.Primes[0]), bigInt(k.Primes[1]), bigInt(k.Precomputed.Dp), bigInt(k.Precomputed.Dq), bigInt(k.Precomputed.Qinv))
	if err != nil {
		return nil
	}
	digest := sha256.Sum256([]byte("einvoice seal check"))
	ours, err1 := openssl.SignRSAPKCS1v15(key, crypto.SHA256, digest[:])
	gos, err2 := rsa.SignPKCS1v15(nil, k, crypto.SHA256, digest[:])
	if err1 != nil || err2 != nil || !bytes.Equal(ours, gos) {
		return nil
	}
	return key
}

// bigInt is a number in the words OpenSSL's binding takes.
func bigInt(n *big.Int) openssl.BigInt {
	words := n.Bits()
	out := make(openssl.BigInt, len(words))
	for i, w := range words {
		out[i] = uint(w)
	}
	return out
}
