package lang

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// root is the repository's root, from this package's directory.
const root = "../.."

// entry is one concept of glossary.txt.
type entry struct {
	concept, term string
	alts          []string
	banned        []*regexp.Regexp
	line          int
}

// glossary reads glossary.txt.
func glossary(t *testing.T) []entry {
	t.Helper()
	f, err := os.Open("glossary.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []entry
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fields := strings.SplitN(line, "|", 4) // a regular expression may hold |
		for i := range fields {
			fields[i] = strings.TrimSpace(fields[i])
		}
		if len(fields) != 4 {
			t.Fatalf("glossary.txt:%d: %d fields, want 4 (concept | term | alternatives | banned)", n, len(fields))
		}
		e := entry{concept: fields[0], term: fields[1], alts: list(fields[2]), line: n}
		for _, b := range list(fields[3]) {
			expr, ok := strings.CutPrefix(b, "re:")
			if !ok {
				expr = regexp.QuoteMeta(b)
			}
			re, err := regexp.Compile(expr)
			if err != nil {
				t.Fatalf("glossary.txt:%d: banned variant %q: %v", n, b, err)
			}
			e.banned = append(e.banned, re)
		}
		out = append(out, e)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func list(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ", ") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// A text is Chinese text a learner reads, with where it is. English texts
// that quote Chinese words (docs/*.md, the README) are checked for banned
// Chinese variants only: their punctuation is English.
type text struct {
	where   string
	s       string
	english bool
}

// chineseTexts returns every Chinese text of the repository.
func chineseTexts(t *testing.T) []text {
	t.Helper()
	var out []text
	for _, m := range []struct {
		name string
		m    map[string]string
	}{{"zh", zh}, {"uiZH", uiZH}, {"actorZH", actorZH}} {
		for en, s := range m.m {
			out = append(out, text{where: fmt.Sprintf("lab/lang: %s[%q]", m.name, en), s: s})
		}
	}
	out = append(out, markdown(t, glob(t, "docs/zh/*.md"), false)...)
	out = append(out, markdown(t, glob(t, "docs/*.md", "README.md"), true)...)
	yamls := glob(t, "scenarios/builtin/*.yaml", "scenarios/lessons/*.yaml", "scenarios/testdata/zh/*.yaml",
		"scenarios/testdata/lesson/*.yaml", "cmd/crdlab/testdata/*.yaml")
	for _, f := range yamls {
		out = append(out, zhFields(t, f)...)
	}
	var files []string
	err := filepath.WalkDir(filepath.Join(root, "scenarios/lessons/_files"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			files = append(files, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	out = append(out, comments(t, files)...)
	for _, f := range glob(t, "cmd/crdlab/testdata/*-zh.golden") {
		out = append(out, lines(t, f)...)
	}
	return out
}

func glob(t *testing.T, patterns ...string) []string {
	t.Helper()
	var out []string
	for _, p := range patterns {
		m, err := filepath.Glob(filepath.Join(root, p))
		if err != nil || len(m) == 0 {
			t.Fatalf("%s: no files (%v)", p, err)
		}
		out = append(out, m...)
	}
	return out
}

func rel(path string) string {
	r, err := filepath.Rel(root, path)
	if err != nil {
		return path
	}
	return r
}

var (
	inlineCode = regexp.MustCompile("`[^`]*`")
	url        = regexp.MustCompile(`https?://[^\s)）]*|\]\([^)]*\)`)
)

// markdown returns the paragraphs of Markdown files that hold Chinese
// (a list item or a table row is a paragraph), outside code blocks, code
// spans and URLs.
func markdown(t *testing.T, files []string, english bool) []text {
	t.Helper()
	var out []text
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var para []string
		start := 0
		flush := func() {
			if s := join(para); hasHan(s) {
				out = append(out, text{where: fmt.Sprintf("%s:%d", rel(f), start), s: s, english: english})
			}
			para = nil
		}
		fenced := false
		for i, line := range strings.Split(string(b), "\n") {
			trimmed := strings.TrimSpace(line)
			if strings.HasPrefix(trimmed, "```") {
				flush()
				fenced = !fenced
				continue
			}
			if fenced {
				continue
			}
			if trimmed == "" || strings.HasPrefix(trimmed, "|") || strings.HasPrefix(trimmed, "#") ||
				strings.HasPrefix(trimmed, "- ") || strings.HasPrefix(trimmed, ">") {
				flush()
			}
			if trimmed == "" {
				continue
			}
			if len(para) == 0 {
				start = i + 1
			}
			para = append(para, url.ReplaceAllString(inlineCode.ReplaceAllString(trimmed, "`…`"), "…"))
		}
		flush()
	}
	return out
}

// join joins wrapped lines: with nothing between Chinese, with a space
// between English words.
func join(lines []string) string {
	var b strings.Builder
	for i, l := range lines {
		if i > 0 {
			prev, _ := utf8.DecodeLastRuneInString(b.String())
			next, _ := utf8.DecodeRuneInString(l)
			if !wide(prev) && !wide(next) {
				b.WriteByte(' ')
			}
		}
		b.WriteString(l)
	}
	return b.String()
}

// wide reports whether r is Chinese: a character or full-width punctuation.
func wide(r rune) bool {
	return unicode.Is(unicode.Han, r) || (r >= 0x3000 && r <= 0x303f) || (r >= 0xff00 && r <= 0xffef) || r == '“' || r == '”'
}

// zhFields returns the strings under every zh: key of a scenario or
// lesson file; a line indented within a text is a command, not prose.
func zhFields(t *testing.T, f string) []text {
	t.Helper()
	b, err := os.ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(b, &doc); err != nil {
		t.Fatalf("%s: %v", f, err)
	}
	var out []text
	var walk func(n *yaml.Node, inZH bool)
	walk = func(n *yaml.Node, inZH bool) {
		switch n.Kind {
		case yaml.ScalarNode:
			if !inZH {
				return
			}
			var prose []string
			for _, line := range strings.Split(n.Value, "\n") {
				if !strings.HasPrefix(line, " ") && strings.TrimSpace(line) != "" {
					prose = append(prose, strings.TrimSpace(line))
				}
			}
			if s := join(prose); hasHan(s) {
				out = append(out, text{where: fmt.Sprintf("%s:%d", rel(f), n.Line), s: s})
			}
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				walk(n.Content[i+1], inZH || n.Content[i].Value == "zh")
			}
		default:
			for _, c := range n.Content {
				walk(c, inZH)
			}
		}
	}
	walk(&doc, false)
	return out
}

// comments returns the Chinese comment lines of a lesson's files (#, //);
// a comment after a YAML field is the seed's own, quoted.
func comments(t *testing.T, files []string) []text {
	t.Helper()
	var out []text
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(b), "\n") {
			trimmed := strings.TrimSpace(line)
			if !hasHan(line) || !(strings.HasPrefix(trimmed, "#") || strings.HasPrefix(trimmed, "//")) {
				continue
			}
			if body := strings.TrimLeft(trimmed, "#/ "); body != "" && body[0] >= 'A' && body[0] <= 'Z' {
				continue // an English comment that quotes Chinese
			}
			out = append(out, text{where: fmt.Sprintf("%s:%d", rel(f), i+1), s: inlineCode.ReplaceAllString(trimmed, "`…`")})
		}
	}
	return out
}

// lines returns a golden file's lines that hold Chinese.
func lines(t *testing.T, f string) []text {
	t.Helper()
	b, err := os.ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	var out []text
	for i, line := range strings.Split(string(b), "\n") {
		if hasHan(line) {
			out = append(out, text{where: fmt.Sprintf("%s:%d", rel(f), i+1), s: line})
		}
	}
	return out
}

func hasHan(s string) bool {
	return strings.IndexFunc(s, func(r rune) bool { return unicode.Is(unicode.Han, r) }) >= 0
}

var (
	// A quotation of the seed: a line that starts "> 种子文本", or “…”
	// right after 种子文本 (说, 写作, 里的…).
	seedQuote = regexp.MustCompile(`^> 种子文本.*$|种子文本[^“”。，；]{0,8}“[^”]*”`)
	// A gloss: “…” after 常译, 也译, 又称… within full-width brackets.
	gloss = regexp.MustCompile(`（[^（）]*(?:常译|也译|又译|又称|也称|常称|也写作|写作|常说|常作)“[^”]*”[^（）]*）`)
	// Half-width punctuation right after a Chinese character, or before
	// one; an opening bracket after one, with or without a space; a
	// quantity split from its unit.
	halfWidth = []*regexp.Regexp{
		regexp.MustCompile(`\p{Han}[:,;?!)]`),
		regexp.MustCompile(`[\p{Han}，。：；、] *\(`),
		regexp.MustCompile(`[0-9] (%|m([^A-Za-z]|$))`),
		regexp.MustCompile(`[:;?!] ?\p{Han}`),
	}
)

// Every Chinese text uses the glossary's one term per concept (no banned
// variant outside a gloss or a quotation of the seed), and full-width
// punctuation after Chinese.
func TestChineseTextFollowsTheGlossary(t *testing.T) {
	entries := glossary(t)
	texts := chineseTexts(t)
	sort.Slice(texts, func(i, j int) bool { return texts[i].where < texts[j].where })
	for _, x := range texts {
		for _, p := range problems(entries, x) {
			t.Errorf("%s: %s\n\t%s", x.where, p, x.s)
		}
	}
}

// problems returns what is wrong with a text.
func problems(entries []entry, x text) []string {
	var out []string
	s := seedQuote.ReplaceAllString(x.s, "“…”")
	unglossed := gloss.ReplaceAllString(s, "（…）")
	for _, e := range entries {
		for _, re := range e.banned {
			if x.english && !hasHan(re.String()) {
				continue
			}
			if m := re.FindString(unglossed); m != "" {
				out = append(out, fmt.Sprintf("%q: the glossary's term for %s is %s (glossary.txt:%d)", strings.TrimSpace(m), e.concept, e.term, e.line))
			}
		}
	}
	if x.english {
		return out
	}
	for _, re := range halfWidth {
		if m := re.FindString(s); m != "" {
			out = append(out, fmt.Sprintf("%q: full-width punctuation in Chinese text (：，；？！（）), and no space in a quantity (50%%, 100m)", m))
		}
	}
	return out
}

// The glossary page lists every concept of glossary.txt, its term and its
// mainstream alternatives; every alternative is glossed once somewhere.
func TestGlossaryPage(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(root, "docs/zh/glossary.md"))
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
	var all strings.Builder
	for _, x := range chineseTexts(t) {
		all.WriteString(x.s + "\n")
	}
	for _, e := range glossary(t) {
		if !strings.Contains(page, "| "+e.term+" |") {
			t.Errorf("docs/zh/glossary.md has no row for %s (| %s |)", e.concept, e.term)
		}
		for _, a := range e.alts {
			if !strings.Contains(page, "“"+a+"”") {
				t.Errorf("docs/zh/glossary.md does not gloss %s's alternative “%s”", e.concept, a)
			}
		}
	}
}

// The checks find what they are for.
func TestGlossaryProblems(t *testing.T) {
	entries := glossary(t)
	for _, tc := range []struct {
		s    string
		want int
	}{
		{"控制器的和解循环（reconcile loop，常译“调谐”）", 0},
		{"控制器的调谐循环", 1},
		{"在命名空间 default 里", 1},
		{"名称空间（namespace，kubernetes.io 中文文档写作“名字空间”）", 0},
		{"种子文本说：“每一个节点都得部署一个Docker”", 0},
		{"lab 运行着一个聚合 API 服务器", 1},
		{"在 lab-node-2 上，crdlab.dev 的 lab.crdlab.dev", 0},
		{"示例 operator 已运行", 1},
		{"webapp-operator 已运行", 0},
		{"概念: 控制器", 2},
		{"CRD: 种子文本里的 User", 1},
		{"概念：控制器", 0},
		{"删除 (随机挑一个)", 2},
		{"删除（随机挑一个）", 0},
		{"和 50 % 的目标比较", 1},
		{"请求 100 m，用了 200m", 1},
		{"请求 100m，用了 200m，50%", 0},
		{"按参与者分道的时间线", 1},
		{"schema 里没有的字段会被修剪掉", 1},
		{"schema 里没有的字段会被剪裁掉", 0},
		// issue 52's seven concepts
		{"ApiServer 拒绝了它", 1},
		{"由 apiserver 处理", 1},
		{"kube-apiserver 把它交给 apiserver（API 服务器）", 0},
		{"它注册监听 User", 1},
		{"它监视 User，只监听 127.0.0.1 的端口", 0},
		{"集群级别的资源类型", 1},
		{"集群作用域（种子文本写作“集群级别”）的资源类型", 0},
		{"三个控制循环", 1},
		{"和解循环（kubernetes.io 中文文档写作“控制回路”）", 0},
		{"按 CPU 伸缩一个 Deployment", 1},
		{"Ready 条件为 True", 1},
		{"Ready 状况为 True", 0},
		{"每个版本各自的模式", 1},
		{"schema（kubernetes.io 中文文档写作“模式”）", 0},
	} {
		if got := problems(entries, text{s: tc.s}); len(got) != tc.want {
			t.Errorf("%q: %d problems %q, want %d", tc.s, len(got), got, tc.want)
		}
	}
}
