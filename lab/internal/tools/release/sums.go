package main

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	format "github.com/crdlab/crdlab/lab/labtest/release"
)

// The files beside the archives (the release format's names).
const (
	SumsFile  = format.SumsFile
	IndexFile = format.IndexFile
)

// fileSHA256 is the hex SHA-256 of the file at path, and its size.
func fileSHA256(path string) (string, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", 0, err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return "", 0, fmt.Errorf("reading %s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), n, nil
}

// formatSums writes sums (file name → hex digest) as sha256sum does,
// "<hex>  <name>" a line, sorted by name.
func formatSums(sums map[string]string) []byte {
	names := make([]string, 0, len(sums))
	for n := range sums {
		names = append(names, n)
	}
	sort.Strings(names)
	var b bytes.Buffer
	for _, n := range names {
		fmt.Fprintf(&b, "%s  %s\n", sums[n], n)
	}
	return b.Bytes()
}

// parseSums reads sha256sum's format: "<64 hex>  <name>" a line (a "*"
// before the name, binary mode, is accepted too).
func parseSums(data []byte) (map[string]string, error) {
	sums := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for line := 1; sc.Scan(); line++ {
		sum, name, ok := strings.Cut(sc.Text(), " ")
		name = strings.TrimPrefix(strings.TrimPrefix(name, " "), "*")
		if b, err := hex.DecodeString(sum); !ok || err != nil || len(b) != sha256.Size || name == "" {
			return nil, fmt.Errorf("%w: line %d, %q: want <sha256 hex>  <file name>", ErrSums, line, sc.Text())
		}
		if _, dup := sums[name]; dup {
			return nil, fmt.Errorf("%w: %s listed twice", ErrSums, name)
		}
		sums[name] = sum
	}
	return sums, sc.Err()
}
