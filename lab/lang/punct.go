package lang

import (
	"regexp"
	"strings"
	"unicode"
)

var (
	// What a Chinese line may quote as it is: code, a quotation (“…”,
	// "…", '…'), a URL.
	verbatim = regexp.MustCompile("`[^`]*`|“[^”]*”|\"[^\"]*\"|'[^'\\n]*'|https?://\\S*")
	// Half-width punctuation in a Chinese line: after a Chinese character
	// or before one; an opening bracket after one or after a space (where
	// Chinese writes （ with no space); a colon after a name that follows
	// Chinese (节点 lab-node-1: kubelet, where Chinese writes ：).
	halfWidthInChinese = []*regexp.Regexp{
		regexp.MustCompile(`\p{Han}[:,;?!)]`),
		regexp.MustCompile(`[\p{Han}，。：；、] *\(`),
		regexp.MustCompile(`[:;?!] ?\p{Han}`),
		regexp.MustCompile(`\s\(`),
		regexp.MustCompile(`\p{Han} [A-Za-z0-9_./-]+: `),
	}
	// A label of an aligned block (crdlab status): a name, a colon and two
	// spaces or more.
	halfWidthLabel = regexp.MustCompile(`^\s*[A-Za-z][A-Za-z ]*:\s{2,}`)
)

// MixedPunctuation returns the half-width punctuation in out, text crdlab
// built at run time in Chinese (a step's description, a scenario's result,
// a node's line, the status block): in each line with Chinese, outside
// what it quotes, and in a block that has Chinese, a label with a
// half-width colon. A line of other words (a timeline's detail, what
// kubectl printed) is the caller's to leave out.
func MixedPunctuation(out string) []string {
	var found []string
	chinese := strings.ContainsFunc(out, isHan)
	for _, line := range strings.Split(out, "\n") {
		if chinese && halfWidthLabel.MatchString(line) {
			found = append(found, strings.TrimSpace(halfWidthLabel.FindString(line)))
			continue
		}
		if !strings.ContainsFunc(line, isHan) {
			continue
		}
		prose := verbatim.ReplaceAllString(line, "…")
		for _, re := range halfWidthInChinese {
			if m := re.FindString(prose); m != "" {
				found = append(found, m+" in "+strings.TrimSpace(line))
				break
			}
		}
	}
	return found
}

func isHan(r rune) bool { return unicode.Is(unicode.Han, r) }
