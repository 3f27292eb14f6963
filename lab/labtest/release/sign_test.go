package release_test

import (
	"crypto/ed25519"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/crdlab/crdlab/lab/labtest/release"
)

// testKey is TestKey's private half, committed for tests.
func testKey(t *testing.T) ed25519.PrivateKey {
	t.Helper()
	data, err := os.ReadFile("../internal/releasetest/testdata/test-only-release-signing-key.pem")
	if err != nil {
		t.Fatal(err)
	}
	block, _ := pem.Decode(data)
	key, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	return key.(ed25519.PrivateKey)
}

func TestKeysParse(t *testing.T) {
	ids := map[string]bool{}
	for _, k := range append(release.Keys, release.TestKey) {
		if _, err := k.Public(); err != nil {
			t.Errorf("key %s: %v", k.ID, err)
		}
		if ids[k.ID] {
			t.Errorf("two keys named %s", k.ID)
		}
		ids[k.ID] = true
	}
	pub, _ := release.TestKey.Public()
	if !pub.Equal(testKey(t).Public()) {
		t.Errorf("TestKey is not the public half of the committed test key")
	}
}

func TestVerify(t *testing.T) {
	index := []byte(`{"releases":{}}`)
	_, other, err := ed25519.GenerateKey(nil)
	if err != nil {
		t.Fatal(err)
	}
	byTest := ed25519.Sign(testKey(t), index)
	for _, tc := range []struct {
		name      string
		data, sig []byte
		allowTest bool
		says      string
	}{
		{name: "test key, allowed", data: index, sig: byTest, allowTest: true},
		{name: "test key, not allowed", data: index, sig: byTest, says: "test-only key, which only tests trust"},
		{name: "another key", data: index, sig: ed25519.Sign(other, index), allowTest: true, says: "matches none of the trusted keys (crdlab-release-2026, test-only)"},
		{name: "edited", data: []byte(`{"releases":{} }`), sig: byTest, allowTest: true, says: "changed after it was signed"},
		{name: "not a signature", data: index, sig: []byte("c2lnbmF0dXJl\n"), allowTest: true, says: "13 bytes, not an ed25519 signature"},
	} {
		k, err := release.Verify(tc.data, tc.sig, release.Trusted(tc.allowTest))
		if tc.says == "" {
			if err != nil || k.ID != release.TestKey.ID {
				t.Errorf("%s: Verify = %s, %v; want the test key", tc.name, k.ID, err)
			}
			continue
		}
		if !errors.Is(err, release.ErrSignature) || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("%s: Verify: %v; want %v saying %q", tc.name, err, release.ErrSignature, tc.says)
		}
	}
}
