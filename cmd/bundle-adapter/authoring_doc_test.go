package main

import (
	"bufio"
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// The authoring guide (docs/authoring.md) cannot go stale: its files are the
// files of docs/authoring/, and its commands are run here, in a copy of that
// folder, with their exit codes and output lines checked.
//
// The guide marks what is checked in the info string of a fenced block:
//
//   - ```yaml {file=provider/task-config.yaml}: a part of that file. The
//     parts of a file, in the guide's order and joined by one empty line,
//     are the whole file, and every file of docs/authoring/ is shown, so a
//     reader who copies the blocks has the files the commands are run on.
//   - ```sh {test}: commands and what they print. A line "$ bundle-adapter
//     ARGS" is a command (a line ending in "\" goes on with the next); its
//     exit code is 0 unless a trailing comment says "# exit N". The lines
//     after it, up to the next command, must each be a line of what it
//     printed (stdout, then stderr), in that order, spaces at the end
//     aside; a line "..." stands for lines not shown.
const authoringGuide = "../../docs/authoring.md"

var fenceInfo = regexp.MustCompile("^```([A-Za-z0-9_-]*)\\s*(?:\\{([^}]*)\\})?\\s*$")

// guideBlock is one fenced block of the guide with what its info string
// asks: file (a part of that file) or test (commands to run).
type guideBlock struct {
	line int // of the opening fence
	file string
	test bool
	body string
}

func readGuide(t *testing.T) []guideBlock {
	t.Helper()
	data, err := os.ReadFile(authoringGuide)
	if err != nil {
		t.Fatal(err)
	}
	var blocks []guideBlock
	var cur *guideBlock
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if cur != nil {
			if strings.TrimSpace(line) == "```" {
				blocks = append(blocks, *cur)
				cur = nil
				continue
			}
			cur.body += line + "\n"
			continue
		}
		if !strings.HasPrefix(line, "```") {
			continue
		}
		m := fenceInfo.FindStringSubmatch(line)
		if m == nil {
			t.Fatalf("%s:%d: a fence this test does not read: %q", authoringGuide, n, line)
		}
		b := guideBlock{line: n}
		for _, attr := range strings.Fields(m[2]) {
			switch {
			case attr == "test":
				b.test = true
			case strings.HasPrefix(attr, "file="):
				b.file = strings.TrimPrefix(attr, "file=")
			default:
				t.Fatalf("%s:%d: unknown block attribute %q", authoringGuide, n, attr)
			}
		}
		cur = &b
	}
	if cur != nil {
		t.Fatalf("%s:%d: block not closed", authoringGuide, cur.line)
	}
	return blocks
}

// The guide's file blocks are docs/authoring/'s files, whole and in order
// (the parts of one file joined by an empty line).
func TestAuthoringGuideShowsItsFiles(t *testing.T) {
	const root = "../../docs/authoring"
	shown := map[string]string{}
	var order []string
	for _, b := range readGuide(t) {
		if b.file == "" {
			continue
		}
		if prev, ok := shown[b.file]; !ok {
			order = append(order, b.file)
		} else {
			shown[b.file] = prev + "\n"
		}
		shown[b.file] += b.body
	}
	onDisk := map[string]bool{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		onDisk[filepath.ToSlash(rel)] = true
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range order {
		have, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			t.Errorf("the guide shows %s, which docs/authoring/ does not hold: %v", f, err)
			continue
		}
		if string(have) != shown[f] {
			t.Errorf("the guide's blocks of %s are not the file docs/authoring/%s:\n--- the guide\n%s--- the file\n%s", f, f, shown[f], have)
		}
	}
	var unshown []string
	for f := range onDisk {
		if _, ok := shown[f]; !ok {
			unshown = append(unshown, f)
		}
	}
	sort.Strings(unshown)
	if len(unshown) > 0 {
		t.Errorf("docs/authoring/ holds files the guide does not show: %v", unshown)
	}
}

// guideCommand is one "$ bundle-adapter ..." of a test block.
type guideCommand struct {
	line int
	args []string
	code int
	want []string // the lines shown after it
}

func parseTestBlock(t *testing.T, b guideBlock) []guideCommand {
	t.Helper()
	var cmds []guideCommand
	lines := strings.Split(strings.TrimSuffix(b.body, "\n"), "\n")
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		n := b.line + 1 + i
		if !strings.HasPrefix(line, "$ ") {
			if len(cmds) == 0 {
				t.Fatalf("%s:%d: output before any command: %q", authoringGuide, n, line)
			}
			c := &cmds[len(cmds)-1]
			c.want = append(c.want, strings.TrimRight(line, " "))
			continue
		}
		text := strings.TrimPrefix(line, "$ ")
		for strings.HasSuffix(text, "\\") && i+1 < len(lines) {
			i++
			text = strings.TrimSuffix(text, "\\") + " " + strings.TrimSpace(lines[i])
		}
		code := 0
		if j := strings.Index(text, " #"); j >= 0 {
			if m := regexp.MustCompile(`exit (\d+)`).FindStringSubmatch(text[j:]); m != nil {
				code, _ = strconv.Atoi(m[1])
			}
			text = text[:j]
		}
		fields := strings.Fields(text)
		if len(fields) == 0 || fields[0] != "bundle-adapter" {
			t.Fatalf("%s:%d: this test runs only bundle-adapter commands: %q", authoringGuide, n, line)
		}
		cmds = append(cmds, guideCommand{line: n, args: fields[1:], code: code})
	}
	return cmds
}

// linesInOrder reports the first wanted line not found, in order, among
// got's lines ("" when every one is).
func linesInOrder(got string, want []string) string {
	have := strings.Split(got, "\n")
	k := 0
	for _, w := range want {
		if w == "..." || w == "" {
			continue
		}
		for k < len(have) && strings.TrimRight(have[k], " ") != w {
			k++
		}
		if k == len(have) {
			return w
		}
		k++
	}
	return ""
}

// The guide's commands, run in order in a copy of docs/authoring/ (what
// one writes there stays for the next command, as in a reader's
// terminal), give the exit codes and the lines the guide shows.
func TestAuthoringGuideCommandsRun(t *testing.T) {
	blocks := readGuide(t)
	var cmds []guideCommand
	for _, b := range blocks {
		if b.test {
			cmds = append(cmds, parseTestBlock(t, b)...)
		}
	}
	if len(cmds) < 4 {
		t.Fatalf("the guide has %d commands to run; want validate, dry-run, test and more", len(cmds))
	}
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS("../../docs/authoring")); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	for _, c := range cmds {
		code, out, errOut := runCLI(t, c.args...)
		if code != c.code {
			t.Errorf("%s:%d: bundle-adapter %s: exit %d, the guide says %d\nstdout:\n%s\nstderr:\n%s",
				authoringGuide, c.line, strings.Join(c.args, " "), code, c.code, out, errOut)
			continue
		}
		if miss := linesInOrder(out+"\n"+errOut, c.want); miss != "" {
			t.Errorf("%s:%d: bundle-adapter %s: the guide shows %q, which is not printed (in that order)\nstdout:\n%s\nstderr:\n%s",
				authoringGuide, c.line, strings.Join(c.args, " "), miss, out, errOut)
		}
	}
}

var (
	mdLink     = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	mdHeading  = regexp.MustCompile("(?m)^#{1,6} +(.+?) *$")
	slugRemove = regexp.MustCompile(`[^\p{L}\p{N} _-]`)
)

// slug is the anchor GitHub gives a heading.
func slug(heading string) string {
	return strings.ReplaceAll(slugRemove.ReplaceAllString(strings.ToLower(heading), ""), " ", "-")
}

// The guide's links and pictures point at files that exist, and each
// #anchor at a heading of its page: a renamed section or file breaks this
// test, not the reader's way in.
func TestAuthoringGuideLinksResolve(t *testing.T) {
	page, err := os.ReadFile(authoringGuide)
	if err != nil {
		t.Fatal(err)
	}
	base := filepath.Dir(authoringGuide)
	for _, m := range mdLink.FindAllStringSubmatch(string(page), -1) {
		target := m[1]
		if strings.Contains(target, "://") {
			continue
		}
		file, anchor, _ := strings.Cut(target, "#")
		path := authoringGuide
		if file != "" {
			path = filepath.Join(base, file)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			if fi, serr := os.Stat(path); serr == nil && fi.IsDir() && anchor == "" {
				continue
			}
			t.Errorf("link %q: %v", target, err)
			continue
		}
		if anchor == "" {
			continue
		}
		found := false
		for _, h := range mdHeading.FindAllStringSubmatch(string(data), -1) {
			if slug(h[1]) == anchor {
				found = true
				break
			}
		}
		if !found {
			t.Errorf("link %q: %s has no heading with the anchor #%s", target, path, anchor)
		}
	}
}
