package main

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/crdlab/crdlab/scenarios"
)

// zhSeedPages are the pages of docs/zh, one per section of the seed
// chapter, with the section each follows.
var zhSeedPages = map[string]string{
	"resource-types.md":    "Kubernetes资源类型",
	"crd.md":               "CRD",
	"extending.md":         "扩展Kubernetes的方式",
	"custom-apiserver.md":  "自定义ApiServer",
	"custom-controller.md": "自定义控制器",
	"crd-spec.md":          "CR及CRD spec",
	"crd-names.md":         "CRD names",
	"examples.md":          "示例",
}

// TestZhDocsNameCommandsThatExist keeps the Chinese guide runnable: in
// every ```sh and ```console block of docs/zh, each crdlab command is a
// command of crdlab with flags it has, each scenario run or explained is a
// built-in one, each repository file named exists, and nothing but crdlab,
// kubectl, export and make is run. Each section of the seed chapter has
// its page, with at least one scenario to run, and the index links every
// page.
func TestZhDocsNameCommandsThatExist(t *testing.T) {
	root := filepath.Join("..", "..")
	check := newDocCommandChecker(t, root)
	pages, err := filepath.Glob(filepath.Join(root, "docs", "zh", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	for page, section := range zhSeedPages {
		if _, err := os.Stat(filepath.Join(root, "docs", "zh", page)); err != nil {
			t.Errorf("docs/zh has no page for the seed's section %s: %v", section, err)
		}
	}
	index, err := os.ReadFile(filepath.Join(root, "docs", "zh", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, page := range pages {
		name := filepath.Base(page)
		data, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		if name != "README.md" && !strings.Contains(string(index), "("+name+")") {
			t.Errorf("docs/zh/README.md does not link %s", name)
		}
		runs := 0
		for _, c := range docCommands(string(data)) {
			if err := check.line(c.text); err != nil {
				t.Errorf("docs/zh/%s:%d: %s: %v", name, c.line, c.text, err)
			}
			if strings.Contains(c.text, "crdlab scenario run ") {
				runs++
			}
		}
		if _, seed := zhSeedPages[name]; seed && runs == 0 {
			t.Errorf("docs/zh/%s (the seed's %s) runs no scenario", name, zhSeedPages[name])
		}
	}
}

// TestDocCommandCheckerRefuses keeps the checker above able to fail.
func TestDocCommandCheckerRefuses(t *testing.T) {
	check := newDocCommandChecker(t, filepath.Join("..", ".."))
	for _, line := range []string{
		"crdlab upp",
		"crdlab scenario runn delete-pod",
		"crdlab scenario run delete-pods",
		"crdlab scenario explain no-such-scenario --lang zh",
		"crdlab up --no-such-flag",
		"crdlab scenario run delete-pod -x",
		"crdlab learn no-such-lesson",
		"bin/crdlab kubectl apply -f fixtures/samples/no-such-file.yaml",
		"kubectl apply -f fixtures/no-such-file.yaml && crdlab status",
		"rm -rf ~/.crdlab",
		"crdlab status | sh",
		"make no-such-target",
	} {
		if err := check.line(line); err == nil {
			t.Errorf("%q passes the check", line)
		}
	}
	for _, line := range []string{
		"crdlab up -d && export KUBECONFIG=~/.crdlab/kubeconfig",
		"LANG=zh_CN.UTF-8 crdlab scenario run delete-pod   # a comment, with crdlab bogus",
		"bin/crdlab scenario run --all --state-dir=/tmp/x -o json",
		"crdlab crd migrate fixtures/seed/users-crd.yaml | crdlab kubectl apply -f -",
		"crdlab kubectl patch wa shop --type=merge -p '{\"spec\":{\"replicas\":4}}'",
		"make build",
	} {
		if err := check.line(line); err != nil {
			t.Errorf("%q: %v", line, err)
		}
	}
}

// docCommand is one command line of a Markdown code block.
type docCommand struct {
	line int
	text string
}

// docCommands returns the command lines of the ```sh (```bash, ```shell)
// and ```console blocks of a Markdown page: in sh blocks every line but
// comments, in console blocks the lines after a "$ " prompt. Lines ending
// in a backslash continue on the next.
func docCommands(page string) []docCommand {
	var out []docCommand
	kind := ""
	cont := ""
	sc := bufio.NewScanner(strings.NewReader(page))
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, "```") {
			if kind == "" {
				kind = strings.TrimPrefix(trimmed, "```")
				if kind == "" {
					kind = "text"
				}
			} else {
				kind = ""
			}
			continue
		}
		switch kind {
		case "sh", "bash", "shell":
		case "console":
			rest, ok := strings.CutPrefix(trimmed, "$ ")
			if !ok && cont == "" {
				continue
			}
			trimmed = rest
		default:
			continue
		}
		if trimmed == "" || strings.HasPrefix(trimmed, "#") && cont == "" {
			continue
		}
		if body, ok := strings.CutSuffix(trimmed, "\\"); ok {
			cont += body + " "
			continue
		}
		out = append(out, docCommand{line: n, text: cont + trimmed})
		cont = ""
	}
	return out
}

// docCommandChecker checks command lines of the docs against crdlab's
// commands, its built-in scenarios and the repository's files.
type docCommandChecker struct {
	root      string
	scenarios map[string]bool
	makefile  string
}

func newDocCommandChecker(t *testing.T, root string) *docCommandChecker {
	t.Helper()
	all, err := scenarios.Builtin()
	if err != nil {
		t.Fatalf("loading the built-in scenarios: %v", err)
	}
	names := map[string]bool{}
	for _, s := range all {
		names[s.Metadata.Name] = true
	}
	makefile, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	return &docCommandChecker{root: root, scenarios: names, makefile: string(makefile)}
}

// errNotAllowed is a program the docs may not run.
var errNotAllowed = errors.New("runs neither crdlab, kubectl, export nor make")

// envAssignment is a variable set for one command: LANG=zh_CN.UTF-8.
var envAssignment = regexp.MustCompile(`^[A-Z_]+=`)

// repoPath is an argument naming a file of the repository.
var repoPath = regexp.MustCompile(`^(fixtures|docs|scenarios|controllers)/`)

// line checks one command line: each command of a pipeline or list.
func (c *docCommandChecker) line(text string) error {
	for _, words := range shellCommands(text) {
		for len(words) > 0 && envAssignment.MatchString(words[0]) {
			words = words[1:]
		}
		if len(words) == 0 {
			continue
		}
		for _, w := range words {
			if repoPath.MatchString(w) {
				if _, err := os.Stat(filepath.Join(c.root, w)); err != nil {
					return fmt.Errorf("file %s: %w", w, err)
				}
			}
		}
		switch prog := words[0]; {
		case prog == "crdlab" || strings.HasSuffix(prog, "/crdlab"):
			if err := c.crdlab(words[1:]); err != nil {
				return err
			}
		case prog == "kubectl", prog == "export":
		case prog == "make":
			for _, target := range words[1:] {
				if strings.Contains(target, "=") {
					continue // a variable: make components K8S=1.35
				}
				if !strings.Contains(c.makefile, "\n"+target+":") {
					return fmt.Errorf("make %s: no such target in the Makefile", target)
				}
			}
		default:
			return fmt.Errorf("%s: %w", prog, errNotAllowed)
		}
	}
	return nil
}

// crdlab checks the arguments of one crdlab command against the root
// command: the command exists, its flags exist, and the scenarios it runs
// or explains are built in (or files that exist).
func (c *docCommandChecker) crdlab(args []string) error {
	root := newRootCommand()
	cmd, rest, err := root.Find(args)
	if err != nil {
		return fmt.Errorf("crdlab %s: %w", strings.Join(args, " "), err)
	}
	if cmd == root {
		return errors.New("names no crdlab command")
	}
	if cmd.DisableFlagParsing {
		return nil // crdlab kubectl: kubectl's own flags
	}
	positional, err := docPositionalArgs(cmd, rest)
	if err != nil {
		return fmt.Errorf("%s: %w", cmd.CommandPath(), err)
	}
	if cmd.CommandPath() == "crdlab learn" {
		for _, name := range positional {
			if !slices.Contains(scenarios.LessonNames(), name) {
				return fmt.Errorf("crdlab learn %s: no such lesson (lessons: %s)", name, strings.Join(scenarios.LessonNames(), ", "))
			}
		}
		return nil
	}
	if cmd.HasSubCommands() && len(positional) > 0 {
		return fmt.Errorf("%s has no command %q", cmd.CommandPath(), positional[0])
	}
	switch cmd.CommandPath() {
	case "crdlab scenario run", "crdlab scenario explain":
		all, _ := cmd.Flags().GetBool("all")
		if len(positional) == 0 && !all {
			return fmt.Errorf("%s names no scenario", cmd.CommandPath())
		}
		for _, name := range positional {
			if c.scenarios[name] {
				continue
			}
			if strings.HasSuffix(name, ".yaml") {
				if _, err := os.Stat(filepath.Join(c.root, name)); err == nil {
					continue
				}
			}
			return fmt.Errorf("%s %s: no such built-in scenario", cmd.CommandPath(), name)
		}
	}
	return nil
}

// docPositionalArgs parses args with cmd's flags (its own and inherited)
// and returns what is left: an unknown flag is an error.
func docPositionalArgs(cmd *cobra.Command, args []string) ([]string, error) {
	cmd.InitDefaultHelpFlag()
	flags := cmd.Flags()
	flags.AddFlagSet(cmd.InheritedFlags())
	if err := flags.Parse(args); err != nil {
		return nil, err
	}
	return flags.Args(), nil
}

// shellCommands splits a shell line into its commands (at |, &&, || and
// ;), each a list of words, with quotes removed and a comment dropped.
func shellCommands(line string) [][]string {
	var cmds [][]string
	var words []string
	var word strings.Builder
	inWord := false
	endWord := func() {
		if inWord {
			words = append(words, word.String())
			word.Reset()
			inWord = false
		}
	}
	endCmd := func() {
		endWord()
		if len(words) > 0 {
			cmds = append(cmds, words)
		}
		words = nil
	}
	for i := 0; i < len(line); i++ {
		ch := line[i]
		switch {
		case ch == '\'' || ch == '"':
			j := strings.IndexByte(line[i+1:], ch)
			if j < 0 {
				j = len(line) - i - 1
			}
			word.WriteString(line[i+1 : i+1+j])
			inWord = true
			i += j + 1
		case ch == ' ' || ch == '\t':
			endWord()
		case ch == '#' && !inWord:
			endCmd()
			return cmds
		case ch == '|' || ch == ';' || ch == '&':
			endCmd()
			if i+1 < len(line) && (line[i+1] == '|' || line[i+1] == '&') {
				i++
			}
		default:
			word.WriteByte(ch)
			inWord = true
		}
	}
	endCmd()
	return cmds
}

// mdLink is a Markdown link or image to a file: [text](target).
var mdLink = regexp.MustCompile(`\]\(([^)#\s]+)(#[^)]*)?\)`)

// TestZhDocsLinksResolve: every relative link of docs/zh (pages, the
// screenshot, the English docs it links back to) names a file that exists,
// and the English README and getting-started page link to it.
func TestZhDocsLinksResolve(t *testing.T) {
	dir := filepath.Join("..", "..", "docs", "zh")
	pages, err := filepath.Glob(filepath.Join(dir, "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	backToEnglish := false
	for _, page := range pages {
		data, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range mdLink.FindAllStringSubmatch(string(data), -1) {
			target := m[1]
			if strings.Contains(target, "://") {
				continue
			}
			if _, err := os.Stat(filepath.Join(dir, target)); err != nil {
				t.Errorf("docs/zh/%s links %s: %v", filepath.Base(page), target, err)
			}
			backToEnglish = backToEnglish || target == "../getting-started.md"
		}
	}
	if !backToEnglish {
		t.Error("docs/zh does not link back to the English docs/getting-started.md")
	}
	// And the English docs link to it.
	for file, link := range map[string]string{"README.md": "(docs/zh/README.md)", "docs/getting-started.md": "(zh/getting-started.md)"} {
		data, err := os.ReadFile(filepath.Join("..", "..", file))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(data), link) {
			t.Errorf("%s does not link %s", file, link)
		}
	}
}
