package proc

import (
	"bufio"
	"encoding/json"
	"os"
	"regexp"
	"strings"
)

// klogError matches klog's error and fatal lines: "E1202 10:00:00.000000 ...".
var klogError = regexp.MustCompile(`^[EF]\d{4} [0-9:.]+\s+\d+ [^\]]+\] (.*)$`)

// LastError returns the last error a component wrote to its log, in a form
// short enough for one line: etcd's JSON "fatal"/"error" entries, klog's E
// and F lines and cobra's "Error:" lines.
func LastError(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	var last string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		if msg := errorMessage(sc.Text()); msg != "" {
			last = msg
		}
	}
	const limit = 300
	if len(last) > limit {
		last = last[:limit] + "…"
	}
	return last
}

func errorMessage(line string) string {
	if strings.HasPrefix(line, "{") {
		var entry struct {
			Level string `json:"level"`
			Msg   string `json:"msg"`
			Error string `json:"error"`
		}
		if json.Unmarshal([]byte(line), &entry) != nil {
			return ""
		}
		if entry.Level != "fatal" && entry.Level != "error" && entry.Level != "panic" {
			return ""
		}
		if entry.Error != "" {
			return entry.Msg + ": " + entry.Error
		}
		return entry.Msg
	}
	if m := klogError.FindStringSubmatch(line); m != nil {
		return m[1]
	}
	if rest, ok := strings.CutPrefix(line, "Error: "); ok {
		return rest
	}
	return ""
}
