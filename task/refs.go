package task

import (
	"github.com/bundle-adapter/bundle-adapter/internal/configfile"
	"os"
	"path/filepath"
	"strings"
)

// RefRoot maps an absolute manifest ref prefix (the folder a chart mounts the
// task config's ConfigMap in, "/etc/adapter", or one file in it) onto a local
// folder or file, so validate and dry-run can check a chart's files where
// they are kept. Written From=To (--ref-root, env ADAPTER_REF_ROOT).
type RefRoot struct {
	From string // absolute, cleaned
	To   string // absolute, cleaned
}

// ParseRefRoot parses "FROM=TO": FROM an absolute path, TO a local path
// (made absolute against the working directory).
func ParseRefRoot(s string) (RefRoot, error) {
	from, to, ok := strings.Cut(s, "=")
	if !ok || from == "" || to == "" {
		return RefRoot{}, configfile.Errorf("ref root %q must be FROM=TO, e.g. /etc/adapter=./charts/examples/maestro", s)
	}
	if !filepath.IsAbs(from) {
		return RefRoot{}, configfile.Errorf("ref root %q: %q must be an absolute path (the folder refs name)", s, from)
	}
	abs, err := filepath.Abs(to)
	if err != nil {
		return RefRoot{}, configfile.Errorf("ref root %q: %v", s, err)
	}
	return RefRoot{From: filepath.Clean(from), To: abs}, nil
}

// refs resolves the manifest refs of one task config.
//
// A relative ref is read from the task config's folder and never from
// outside it (resolveRef). An absolute ref is read, in this order:
//
//  1. from the task config's folder when it names a file in it: the chart
//     mounts the task config and its manifests in one folder (/etc/adapter),
//     so this is the pod's case;
//  2. through the first RefRoot whose From is the ref or a folder holding
//     it: From/rest is read as To/rest, never from outside To;
//  3. from the task config's folder by the ref's base name, when that file
//     exists there (a chart's files kept beside the task config under the
//     names the ConfigMap gives them).
//
// Anything else is an error: nothing is ever read outside the task config's
// folder and the folders (or files) a RefRoot names.
type refs struct {
	dir   string
	roots []RefRoot
}

func (r refs) resolve(ref string) (string, error) {
	if !filepath.IsAbs(ref) {
		return resolveRef(r.dir, ref)
	}
	ref = filepath.Clean(ref)
	absDir, err := filepath.Abs(r.dir)
	if err != nil {
		return "", configfile.Errorf("cannot resolve %s: %v", r.dir, err)
	}
	if within(absDir, ref) {
		rel, _ := filepath.Rel(absDir, ref)
		return resolveRef(absDir, rel)
	}
	for _, root := range r.roots {
		if ref == root.From {
			return resolveMappedFile(root.To, ref)
		}
		if within(root.From, ref) {
			rel, _ := filepath.Rel(root.From, ref)
			file, err := resolveRef(root.To, rel)
			if err != nil {
				return "", configfile.Errorf("ref %q (mapped by --ref-root %s=%s): %v", ref, root.From, root.To, err)
			}
			return file, nil
		}
	}
	base := filepath.Base(ref)
	if st, err := os.Stat(filepath.Join(r.dir, base)); err == nil && st.Mode().IsRegular() {
		return resolveRef(r.dir, base)
	}
	return "", configfile.Errorf("absolute ref %q is outside the task config's folder and %s is not in it; "+
		"the chart mounts the task config and its manifests in one folder: keep the file there under that name, "+
		"or map the folder with --ref-root %s=<local folder> (env ADAPTER_REF_ROOT)", ref, base, filepath.Dir(ref))
}

// resolveMappedFile reads a RefRoot that maps one file: the file itself,
// after links, must be a regular file.
func resolveMappedFile(to, ref string) (string, error) {
	file, err := filepath.EvalSymlinks(to)
	if err != nil {
		return "", configfile.Errorf("ref %q (mapped to %s): cannot read: %v", ref, to, configfile.UnwrapPathErr(err))
	}
	return file, nil
}
