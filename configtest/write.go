package configtest

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/bundle-adapter/bundle-adapter/internal/configfile"
)

// writeReplacing writes data to path the one way this package writes a
// file (--update's test files, --junit's report): into a temporary file in
// the folder of the file written and renamed over it, so that a failed
// write (a full disk, a size limit) leaves the old file whole. It refuses,
// writing nothing:
//   - a path that is a symbolic link whose target is outside the link's
//     folder (a link inside the folder is followed: its target is written);
//   - a path that exists and is not a regular file (a FIFO is never
//     opened, so it cannot hang the write);
//   - a path that is the same file as one of inputs (the run's test files,
//     and the configs and documents they use), compared by identity, so a
//     link or another spelling of an input is refused too.
//
// perm is the mode of a new file; an existing one keeps its own.
func writeReplacing(path string, data []byte, perm fs.FileMode, inputs []string) error {
	target, err := writeTarget(path)
	if err != nil {
		return err
	}
	st, err := os.Lstat(target)
	switch {
	case err == nil && !st.Mode().IsRegular():
		return fmt.Errorf("%s is not a regular file (%s): not written", target, st.Mode().Type())
	case err == nil:
		perm = st.Mode().Perm()
		if in := sameAsInput(st, inputs); in != "" {
			return fmt.Errorf("%s is %s, an input of this run: not written over", path, in)
		}
	case !errors.Is(err, fs.ErrNotExist):
		return err
	}
	return replaceFile(target, data, perm)
}

// writeTarget is the file a write to path replaces: path, or the target of
// a symbolic link that stays in the link's folder.
func writeTarget(path string) (string, error) {
	st, err := os.Lstat(path)
	if err != nil || st.Mode()&fs.ModeSymlink == 0 {
		return path, nil
	}
	target, err := filepath.EvalSymlinks(path)
	if err != nil {
		return "", fmt.Errorf("%s: a link that does not resolve: %w", path, configfile.UnwrapPathErr(err))
	}
	dir, err := filepath.EvalSymlinks(filepath.Dir(path))
	if err != nil {
		return "", err
	}
	if filepath.Dir(target) != dir {
		return "", fmt.Errorf("%s is a link to %s, outside its folder: not written through", path, target)
	}
	return target, nil
}

// sameAsInput names the input st is, or "".
func sameAsInput(st fs.FileInfo, inputs []string) string {
	for _, in := range inputs {
		if ist, err := os.Stat(in); err == nil && os.SameFile(st, ist) {
			return in
		}
	}
	return ""
}

// replaceFile writes data to a temporary file beside target, syncs it and
// renames it over target; the temporary file is removed on failure.
func replaceFile(target string, data []byte, perm fs.FileMode) (err error) {
	tmp, err := os.CreateTemp(filepath.Dir(target), "."+filepath.Base(target)+".*.tmp")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			_ = os.Remove(tmp.Name())
		}
	}()
	if _, err = tmp.Write(data); err != nil {
		_ = tmp.Close()
		return err
	}
	if err = tmp.Sync(); err != nil {
		_ = tmp.Close()
		return err
	}
	if err = tmp.Close(); err != nil {
		return err
	}
	if err = os.Chmod(tmp.Name(), perm); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), target)
}

// declaredInputs are the configs a test file names (adapter_config,
// task_config), read from its text alone so that a file that does not load
// still protects them; nil when it cannot be read.
func declaredInputs(path string) []string {
	data, err := configfile.ReadFileBounded(path, configfile.MaxFileBytes)
	if err != nil {
		return nil
	}
	var f struct {
		AdapterConfig string `yaml:"adapter_config"`
		TaskConfig    string `yaml:"task_config"`
	}
	if yaml.Unmarshal(data, &f) != nil {
		return nil
	}
	var out []string
	for _, p := range []string{f.AdapterConfig, f.TaskConfig} {
		if p != "" {
			out = append(out, under(filepath.Dir(path), p))
		}
	}
	return out
}

// docFiles are the documents the loaded test file reads (events, API
// responses, states), as paths.
func (t *loaded) docFiles() []string {
	dir := filepath.Dir(t.path)
	var out []string
	add := func(ds ...*Doc) {
		for _, d := range ds {
			if d != nil && d.File != "" {
				out = append(out, under(dir, d.File))
			}
		}
	}
	addStep := func(s *Step) {
		add(s.Event, s.APIResponses, s.MaestroState, s.KubeState, s.Discovery)
	}
	add(t.file.Defaults.Event, t.file.Defaults.APIResponses)
	for i := range t.file.Cases {
		addStep(&t.file.Cases[i].Step)
		for j := range t.file.Cases[i].Steps {
			addStep(&t.file.Cases[i].Steps[j])
		}
	}
	return out
}

// anchoredEdit refuses edits that would break or silently widen YAML
// anchors: an edited node that is, or lies under, an anchored node (other
// places alias it: rewriting it would change them too, and re-encoding
// drops the anchor they refer to), or is an alias itself.
func anchoredEdit(root *yaml.Node, edits []edit) error {
	shared := map[*yaml.Node]string{}
	var walk func(n *yaml.Node, anchor string)
	walk = func(n *yaml.Node, anchor string) {
		if n.Anchor != "" {
			anchor = n.Anchor
		}
		if anchor != "" {
			shared[n] = anchor
		}
		for _, c := range n.Content {
			walk(c, anchor)
		}
	}
	walk(root, "")
	var bad []string
	for _, e := range edits {
		switch {
		case e.node.Kind == yaml.AliasNode:
			bad = append(bad, fmt.Sprintf("line %d is an alias (*%s)", e.node.Line, e.node.Value))
		case shared[e.node] != "":
			bad = append(bad, fmt.Sprintf("line %d is part of anchor &%s, which other places may alias", e.node.Line, shared[e.node]))
		}
	}
	if len(bad) > 0 {
		return fmt.Errorf("not rewritten: %s; write those expectations without the anchor, or update them by hand", strings.Join(bad, "; "))
	}
	return nil
}
