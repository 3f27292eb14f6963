package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// zhTwin names the page of docs/zh that says in Chinese what an English
// page of docs says, where their names differ.
var zhTwin = map[string]string{"extending-the-api.md": "extending.md"}

// docsMention is a page of the docs named in text: docs/workloads.md.
var docsMention = regexp.MustCompile(`(?:^|[^A-Za-z0-9_./-])(docs/[A-Za-z0-9_/-]+\.md)`)

// chineseOf returns the page of docs/zh for an English page of docs (or
// the README), or "" when there is none.
func chineseOf(english string) string {
	base := filepath.Base(english)
	if t, ok := zhTwin[base]; ok {
		base = t
	}
	zh := filepath.Join("..", "..", "docs", "zh", base)
	if _, err := os.Stat(zh); err != nil {
		return ""
	}
	return zh
}

// Every page the Chinese docs and the Chinese help send a reader to is in
// Chinese: a link of docs/zh to a page is to a page of docs/zh, or to an
// English page whose Chinese twin docs/zh has (the switch to English:
// zh/getting-started.md's ../getting-started.md); a page the Chinese help
// names is a page of docs/zh that exists.
func TestZhLinksStayInChinese(t *testing.T) {
	dir := filepath.Join("..", "..", "docs", "zh")
	pages, err := filepath.Glob(filepath.Join(dir, "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	links := 0
	for _, page := range pages {
		data, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		var targets []string
		for _, m := range mdLink.FindAllStringSubmatch(string(data), -1) {
			if !strings.Contains(m[1], "://") {
				targets = append(targets, filepath.Join(dir, m[1]))
			}
		}
		for _, m := range docsMention.FindAllStringSubmatch(string(data), -1) {
			targets = append(targets, filepath.Join("..", "..", m[1]))
		}
		for _, target := range targets {
			if !strings.HasSuffix(target, ".md") {
				continue // a file or a folder, not a page (TestZhDocsLinksResolve)
			}
			links++
			if _, err := os.Stat(target); err != nil {
				t.Errorf("docs/zh/%s links %s: %v", filepath.Base(page), target, err)
				continue
			}
			if filepath.Dir(target) == dir {
				continue
			}
			if chineseOf(target) == "" {
				t.Errorf("docs/zh/%s sends a Chinese reader to %s, which has no Chinese page in docs/zh", filepath.Base(page), strings.TrimPrefix(target, "../../"))
			}
		}
	}
	if links < 20 {
		t.Errorf("only %d links to pages in docs/zh", links)
	}

	// The help in Chinese, of every command.
	t.Setenv("LC_ALL", "zh_CN.UTF-8")
	t.Setenv("HOME", "/home/you")
	t.Setenv("CRDLAB_STATE_DIR", "")
	named := 0
	for _, path := range commandPaths(newRootCommand()) {
		var out bytes.Buffer
		cmd := newRootCommand()
		cmd.SetArgs(append(append([]string(nil), path...), "--help"))
		cmd.SetOut(&out)
		cmd.SetErr(&out)
		if err := cmd.Execute(); err != nil {
			t.Fatalf("crdlab %s --help: %v", strings.Join(path, " "), err)
		}
		for _, m := range docsMention.FindAllStringSubmatch(out.String(), -1) {
			named++
			if !strings.HasPrefix(m[1], "docs/zh/") {
				t.Errorf("crdlab %s --help, in Chinese, names %s: not a page of docs/zh", strings.Join(path, " "), m[1])
				continue
			}
			if _, err := os.Stat(filepath.Join("..", "..", m[1])); err != nil {
				t.Errorf("crdlab %s --help names %s: %v", strings.Join(path, " "), m[1], err)
			}
		}
	}
	if named < 5 {
		t.Errorf("the Chinese help names only %d pages", named)
	}
}
