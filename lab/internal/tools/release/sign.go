package main

import (
	"crypto/ed25519"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	format "github.com/crdlab/crdlab/lab/labtest/release"
)

// SigningKeyEnv holds the PEM of the private key that signs a release
// (openssl genpkey -algorithm ed25519), when -signing-key names no file:
// the release workflow's secret.
const SigningKeyEnv = "CRDLAB_RELEASE_SIGNING_KEY"

// ErrSignature: index.json or SHA256SUMS has no signature, or one that is
// not a trusted key's signature of it.
var ErrSignature = errors.New("release signature")

// signed is what Package signs: index.json and SHA256SUMS.
var signed = []string{format.IndexFile, format.SumsFile}

// readSigningKey reads the ed25519 private key from the PEM file path,
// or, path empty, from $CRDLAB_RELEASE_SIGNING_KEY.
func readSigningKey(path string) (ed25519.PrivateKey, error) {
	data, from := []byte(os.Getenv(SigningKeyEnv)), "$"+SigningKeyEnv
	if path != "" {
		var err error
		if data, err = os.ReadFile(path); err != nil {
			return nil, fmt.Errorf("-signing-key: %w", err)
		}
		from = path
	}
	if len(data) == 0 {
		return nil, fmt.Errorf("no signing key: give -signing-key <PEM file> or %s (make release gives the test key outside the release workflow)", SigningKeyEnv)
	}
	block, _ := pem.Decode(data)
	if block == nil || block.Type != "PRIVATE KEY" {
		return nil, fmt.Errorf("signing key %s: not a PEM private key (openssl genpkey -algorithm ed25519)", from)
	}
	key, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	if err != nil {
		return nil, fmt.Errorf("signing key %s: %w", from, err)
	}
	ed, ok := key.(ed25519.PrivateKey)
	if !ok {
		return nil, fmt.Errorf("signing key %s: a %T, not an ed25519 key", from, key)
	}
	return ed, nil
}

// signingKeyID is the release.Keys (or test) key whose private half key
// is: a release signed by a key no crdlab trusts is refused here rather
// than by every download.
func signingKeyID(key ed25519.PrivateKey) (string, error) {
	for _, k := range format.Trusted(true) {
		pub, err := k.Public()
		if err != nil {
			return "", err
		}
		if pub.Equal(key.Public()) {
			return k.ID, nil
		}
	}
	return "", fmt.Errorf("the signing key's public half is none of lab/labtest/release's Keys: no crdlab would trust the release (docs/releases.md says how to add a key)")
}

// sign writes the detached signature of each of signed in dir.
func sign(dir string, key ed25519.PrivateKey) error {
	for _, name := range signed {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, format.SignatureFile(name)), ed25519.Sign(key, data), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// checkSignatures: index.json and SHA256SUMS in dir are signed by one of
// the release keys (or the test key, with allowTestKey); it returns the
// key's ID.
func checkSignatures(dir string, allowTestKey bool) (string, error) {
	var id string
	for _, name := range signed {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			return "", err
		}
		sigFile := filepath.Join(dir, format.SignatureFile(name))
		sig, err := os.ReadFile(sigFile)
		if err != nil {
			return "", fmt.Errorf("%w: %s is not signed: %w", ErrSignature, name, err)
		}
		k, err := format.Verify(data, sig, format.Trusted(allowTestKey))
		if err != nil {
			return "", fmt.Errorf("%w: %s: %w", ErrSignature, sigFile, err)
		}
		id = k.ID
	}
	return id, nil
}
