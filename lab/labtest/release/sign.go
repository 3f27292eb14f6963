package release

import (
	"crypto/ed25519"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"strings"
)

// Key is the public half of a key that signs crdlab's releases: each
// release's index.json and SHA256SUMS have a detached ed25519 signature
// beside them (SignatureFile), made by the release workflow with the
// private half, a secret of the repository (docs/releases.md).
type Key struct {
	// ID names the key in messages.
	ID string
	// PEM is the public key as openssl prints it (openssl pkey -pubout):
	// what a user saves to check a signature by hand (docs/security.md).
	PEM string
}

// Keys are the keys a release may be signed with, newest first. This
// list, compiled into crdlab and into the labtest module, is the trust
// root: Go's checksum database authenticates it through the module that
// carries it. To rotate (docs/releases.md): a release adds the new key
// here, the next is signed with it, and a later one drops the old key.
var Keys = []Key{{
	ID: "crdlab-release-2026",
	PEM: `-----BEGIN PUBLIC KEY-----
MCowBQYDK2VwAyEA7Md2ZOyWB20aIhLbgFiIdv2VJfpZg0GPYxN1PMLLp1I=
-----END PUBLIC KEY-----
`,
}}

// TestKey signs the releases tests make and 'make release' outside the
// release workflow. Its private half is committed
// (lab/labtest/internal/releasetest/testdata/test-only-release-signing-key.pem),
// so anyone can sign with it: it is trusted only when asked for
// (Trusted(true): AllowTestKeyEnv for a download from a loopback address,
// -allow-test-key for 'release verify'), never by default.
var TestKey = Key{
	ID: "test-only",
	PEM: `-----BEGIN PUBLIC KEY-----
MCowBQYDK2VwAyEAIiR4KXSmAO6U3teihpZUPwu0qYFIreZhjjlQo25MfQ4=
-----END PUBLIC KEY-----
`,
}

// AllowTestKeyEnv, set to 1, makes a download from a loopback address
// (127.0.0.1, ::1, localhost: a test's server) trust TestKey as well.
// A download from anywhere else ignores it.
const AllowTestKeyEnv = "CRDLAB_ALLOW_TEST_KEY"

// Trusted is Keys, and TestKey with allowTest.
func Trusted(allowTest bool) []Key {
	if allowTest {
		return append(append([]Key(nil), Keys...), TestKey)
	}
	return Keys
}

// Errors of Verify.
var (
	// ErrUnsigned: the file has no signature beside it.
	ErrUnsigned = errors.New("unsigned release file")
	// ErrSignature: the signature is not a trusted key's signature of
	// the file.
	ErrSignature = errors.New("bad release signature")
)

// Verify checks that sig, the content of a signature file, is an ed25519
// signature of data by one of keys, and returns that key. The error says
// whether the signature is malformed, is the test key's (not in keys), or
// matches no key: the file was changed after signing, or another key
// signed it.
func Verify(data, sig []byte, keys []Key) (Key, error) {
	if len(sig) != ed25519.SignatureSize {
		return Key{}, fmt.Errorf("%w: %d bytes, not an ed25519 signature (%d bytes)", ErrSignature, len(sig), ed25519.SignatureSize)
	}
	var ids []string
	for _, k := range keys {
		pub, err := k.Public()
		if err != nil {
			return Key{}, err
		}
		if ed25519.Verify(pub, data, sig) {
			return k, nil
		}
		ids = append(ids, k.ID)
	}
	if pub, err := TestKey.Public(); err == nil && ed25519.Verify(pub, data, sig) {
		return Key{}, fmt.Errorf("%w: signed by crdlab's %s key, which only tests trust (%s=1 with a download from 127.0.0.1)", ErrSignature, TestKey.ID, AllowTestKeyEnv)
	}
	return Key{}, fmt.Errorf("%w: it matches none of the trusted keys (%s): the file was changed after it was signed, or another key signed it",
		ErrSignature, strings.Join(ids, ", "))
}

// Public parses the key.
func (k Key) Public() (ed25519.PublicKey, error) {
	block, _ := pem.Decode([]byte(k.PEM))
	if block == nil || block.Type != "PUBLIC KEY" {
		return nil, fmt.Errorf("release key %s: not a PEM public key", k.ID)
	}
	pub, err := x509.ParsePKIXPublicKey(block.Bytes)
	if err != nil {
		return nil, fmt.Errorf("release key %s: %w", k.ID, err)
	}
	ed, ok := pub.(ed25519.PublicKey)
	if !ok {
		return nil, fmt.Errorf("release key %s: a %T, not an ed25519 key", k.ID, pub)
	}
	return ed, nil
}
