package main

import (
	"archive/tar"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"time"
)

// member is a file of an archive: its name at the archive's top level, its
// mode and where its content is read from.
type member struct {
	name string
	mode int64
	from string
}

// writeArchive writes members into a new .tar.gz at path, each entry
// owned by root with modTime, the gzip header without name or time, so
// that the same members give the same bytes. It returns the sum of the
// members' sizes.
func writeArchive(path string, members []member, modTime time.Time) (unpacked int64, err error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return 0, err
	}
	defer func() {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			_ = os.Remove(path) // a half-written archive is not an archive
		}
	}()
	zw := gzip.NewWriter(f)
	tw := tar.NewWriter(zw)
	for _, m := range members {
		size, err := addMember(tw, m, modTime)
		if err != nil {
			return 0, fmt.Errorf("%s: %w", path, err)
		}
		unpacked += size
	}
	if err := tw.Close(); err != nil {
		return 0, fmt.Errorf("%s: %w", path, err)
	}
	return unpacked, zw.Close()
}

// addMember writes m into tw, returning its size.
func addMember(tw *tar.Writer, m member, modTime time.Time) (int64, error) {
	src, err := os.Open(m.from)
	if err != nil {
		return 0, err
	}
	defer src.Close()
	st, err := src.Stat()
	if err != nil {
		return 0, err
	}
	if !st.Mode().IsRegular() {
		return 0, fmt.Errorf("%s: not a regular file", m.from)
	}
	hdr := &tar.Header{
		Typeflag: tar.TypeReg,
		Name:     m.name,
		Mode:     m.mode,
		Size:     st.Size(),
		ModTime:  modTime,
		Format:   tar.FormatUSTAR,
	}
	if err := tw.WriteHeader(hdr); err != nil {
		return 0, fmt.Errorf("%s: %w", m.name, err)
	}
	if _, err := io.Copy(tw, src); err != nil {
		return 0, fmt.Errorf("%s from %s: %w", m.name, m.from, err)
	}
	return st.Size(), nil
}

// entry is a file read back from an archive.
type entry struct {
	mode    int64
	content []byte
}

// readArchive reads every entry of the .tar.gz at path, by name. Only
// regular files at the top level, each once, are accepted.
func readArchive(path string) (map[string]entry, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrArchive, path, err)
	}
	tr := tar.NewReader(zr)
	entries := map[string]entry{}
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return entries, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%w: %s: %w", ErrArchive, path, err)
		}
		if hdr.Typeflag != tar.TypeReg {
			return nil, fmt.Errorf("%w: %s: %s is not a regular file (type %q)", ErrArchive, path, hdr.Name, hdr.Typeflag)
		}
		if _, dup := entries[hdr.Name]; dup {
			return nil, fmt.Errorf("%w: %s: %s twice", ErrArchive, path, hdr.Name)
		}
		content, err := io.ReadAll(tr)
		if err != nil {
			return nil, fmt.Errorf("%w: %s: %s: %w", ErrArchive, path, hdr.Name, err)
		}
		entries[hdr.Name] = entry{mode: hdr.Mode, content: content}
	}
}
