// Package charts renders and checks the Helm chart in charts/bundle-adapter
// with the helm binary hack/helm.sh builds: lint and template with the
// chart's defaults and with every values file of its ci/ folder, the
// rendered objects split into documents, and the files the pod would mount
// materialized in a folder so the adapter can validate them. Its tests, and
// e2e/deploy_test.go (a server-side dry run of the rendered objects), use it.
package charts

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"
)

// ChartDir is the chart's folder, relative to the repository root.
const ChartDir = "charts/bundle-adapter"

// Helm returns the path of the helm binary hack/helm.sh builds (root is the
// repository root), or an error saying how to build it.
func Helm(root string) (string, error) {
	out, err := exec.Command(filepath.Join(root, "hack", "helm.sh"), "path").Output()
	if err != nil {
		return "", fmt.Errorf("hack/helm.sh path: %v", err)
	}
	p := strings.TrimSpace(string(out))
	if fi, err := os.Stat(p); err != nil || fi.IsDir() || fi.Mode()&0o111 == 0 {
		return "", fmt.Errorf("no helm binary at %s: run hack/helm.sh build", p)
	}
	return p, nil
}

// Case is one way of rendering the chart: its defaults (Values empty) or
// one values file of its ci/ folder.
type Case struct {
	Name   string // "defaults" or the values file's base name without .yaml
	Values string // path of the values file; empty for the defaults
}

// Cases lists the chart's defaults and every ci/*.yaml values file.
func Cases(root string) ([]Case, error) {
	files, err := filepath.Glob(filepath.Join(root, ChartDir, "ci", "*.yaml"))
	if err != nil {
		return nil, err
	}
	sort.Strings(files)
	cases := []Case{{Name: "defaults"}}
	for _, f := range files {
		cases = append(cases, Case{Name: strings.TrimSuffix(filepath.Base(f), ".yaml"), Values: f})
	}
	return cases, nil
}

func (c Case) args() []string {
	if c.Values == "" {
		return nil
	}
	return []string{"--values", c.Values}
}

// Lint runs helm lint --strict on the chart with the case's values.
func Lint(helm, root string, c Case) ([]byte, error) {
	args := append([]string{"lint", "--strict", filepath.Join(root, ChartDir)}, c.args()...)
	return run(helm, args...)
}

// Template runs helm template for release name and namespace with the
// case's values and any extra arguments (e.g. --api-versions), and returns
// the rendered manifests.
func Template(helm, root, release, namespace string, c Case, extra ...string) ([]byte, error) {
	args := append([]string{"template", release, filepath.Join(root, ChartDir), "--namespace", namespace}, c.args()...)
	return run(helm, append(args, extra...)...)
}

func run(bin string, args ...string) ([]byte, error) {
	cmd := exec.Command(bin, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return stdout.Bytes(), fmt.Errorf("%s %s: %v\n%s%s", filepath.Base(bin), strings.Join(args, " "), err, stdout.String(), stderr.String())
	}
	return stdout.Bytes(), nil
}

// Object is one rendered manifest: its kind, name and namespace, the data
// of a ConfigMap, and the whole document.
type Object struct {
	APIVersion string `yaml:"apiVersion"`
	Kind       string `yaml:"kind"`
	Metadata   struct {
		Name      string            `yaml:"name"`
		Namespace string            `yaml:"namespace"`
		Labels    map[string]string `yaml:"labels"`
	} `yaml:"metadata"`
	Data map[string]string `yaml:"data"`
	Doc  []byte            `yaml:"-"`
}

// Split decodes every non-empty YAML document of rendered.
func Split(rendered []byte) ([]Object, error) {
	dec := yaml.NewDecoder(bytes.NewReader(rendered))
	var objs []Object
	for {
		var n yaml.Node
		if err := dec.Decode(&n); errors.Is(err, io.EOF) {
			return objs, nil
		} else if err != nil {
			return nil, err
		}
		var o Object
		if err := n.Decode(&o); err != nil {
			return nil, err
		}
		if o.Kind == "" {
			continue
		}
		doc, err := yaml.Marshal(&n)
		if err != nil {
			return nil, err
		}
		o.Doc = doc
		objs = append(objs, o)
	}
}

// deployment is the part of the Deployment Mount reads.
type deployment struct {
	Spec struct {
		Template struct {
			Spec podSpec `yaml:"spec"`
		} `yaml:"template"`
	} `yaml:"spec"`
}

type podSpec struct {
	Containers []container `yaml:"containers"`
	Volumes    []volume    `yaml:"volumes"`
}

type container struct {
	Name         string        `yaml:"name"`
	Args         []string      `yaml:"args"`
	Env          []envVar      `yaml:"env"`
	VolumeMounts []volumeMount `yaml:"volumeMounts"`
}

type volumeMount struct {
	Name      string `yaml:"name"`
	MountPath string `yaml:"mountPath"`
	SubPath   string `yaml:"subPath"`
}

type volume struct {
	Name      string     `yaml:"name"`
	ConfigMap *cmSource  `yaml:"configMap"`
	Projected *projected `yaml:"projected"`
}

type envVar struct {
	Name      string         `yaml:"name"`
	Value     *string        `yaml:"value"`
	ValueFrom map[string]any `yaml:"valueFrom"`
}

type cmSource struct {
	Name  string `yaml:"name"`
	Items []struct {
		Key  string `yaml:"key"`
		Path string `yaml:"path"`
	} `yaml:"items"`
}

type projected struct {
	Sources []struct {
		ConfigMap *cmSource `yaml:"configMap"`
	} `yaml:"sources"`
}

// Mounted is the adapter's configuration as the pod would see it, written
// under a folder: the three files' paths there and the environment.
type Mounted struct {
	Config, TaskConfig, BrokerConfig string
	Env                              []string // NAME=value; a value from a Secret is a placeholder
}

// SecretPlaceholder stands for a variable the Deployment reads from a
// Secret (the RabbitMQ URL), so the configuration can be validated.
const SecretPlaceholder = "amqp://user:password@rabbitmq.invalid:5672/"

// Mount writes the files the rendered Deployment mounts from the rendered
// ConfigMaps under dir (a mount path /etc/x becomes dir/etc/x, a ConfigMap
// volume with items only those keys at their paths, a subPath mount the one
// file) and returns the paths its command line and environment name for
// the adapter config, task config and broker config. A ConfigMap that is
// not among objs (made elsewhere) is skipped.
func Mount(objs []Object, dir string) (*Mounted, error) {
	cms, dep := configMapsAndDeployment(objs)
	if dep == nil {
		return nil, errors.New("no Deployment among the rendered objects")
	}
	pod, err := podOf(dep)
	if err != nil {
		return nil, err
	}
	c := pod.Containers[0]
	if err := writeMounts(dir, c.VolumeMounts, volumeFiles(pod.Volumes, cms)); err != nil {
		return nil, err
	}
	return mountedConfig(c, dir)
}

// configMapsAndDeployment indexes objs' ConfigMaps by name and returns the
// last Deployment among them (nil when there is none).
func configMapsAndDeployment(objs []Object) (map[string]Object, *Object) {
	cms := map[string]Object{}
	var dep *Object
	for i, o := range objs {
		switch o.Kind {
		case "ConfigMap":
			cms[o.Metadata.Name] = o
		case "Deployment":
			dep = &objs[i]
		}
	}
	return cms, dep
}

// podOf decodes the pod spec of the Deployment dep; an error when it has no
// container.
func podOf(dep *Object) (podSpec, error) {
	var d deployment
	if err := yaml.Unmarshal(dep.Doc, &d); err != nil {
		return podSpec{}, err
	}
	pod := d.Spec.Template.Spec
	if len(pod.Containers) == 0 {
		return podSpec{}, errors.New("the Deployment has no container")
	}
	return pod, nil
}

// volumeFiles maps each ConfigMap or projected volume's name to its files
// (a path inside the volume to its content) from the ConfigMaps cms. A
// volume whose ConfigMaps are not in cms has no files but is present.
func volumeFiles(vols []volume, cms map[string]Object) map[string]map[string]string {
	files := map[string]map[string]string{}
	for _, v := range vols {
		switch {
		case v.ConfigMap != nil:
			addConfigMap(files, v.Name, v.ConfigMap, cms)
		case v.Projected != nil:
			for _, s := range v.Projected.Sources {
				if s.ConfigMap != nil {
					addConfigMap(files, v.Name, s.ConfigMap, cms)
				}
			}
		}
	}
	return files
}

// addConfigMap adds the files src projects into volume vol: all of its
// ConfigMap's keys, or only its items' keys at their paths.
func addConfigMap(files map[string]map[string]string, vol string, src *cmSource, cms map[string]Object) {
	if files[vol] == nil {
		files[vol] = map[string]string{}
	}
	cm, ok := cms[src.Name]
	if !ok {
		return
	}
	if len(src.Items) == 0 {
		for k, v := range cm.Data {
			files[vol][k] = v
		}
		return
	}
	for _, it := range src.Items {
		if v, ok := cm.Data[it.Key]; ok {
			files[vol][it.Path] = v
		}
	}
}

// writeMounts writes under dir the files each mount's volume holds (see
// Mount); mounts of volumes not in files are skipped.
func writeMounts(dir string, mounts []volumeMount, files map[string]map[string]string) error {
	for _, m := range mounts {
		vf, ok := files[m.Name]
		if !ok {
			continue
		}
		for p, content := range vf {
			target := filepath.Join(dir, m.MountPath, p)
			if m.SubPath != "" {
				if p != m.SubPath {
					continue
				}
				target = filepath.Join(dir, m.MountPath)
			}
			if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
				return err
			}
			if err := os.WriteFile(target, []byte(content), 0o644); err != nil {
				return err
			}
		}
	}
	return nil
}

// mountedConfig is the Mounted for container c with files under dir: its
// environment, and the three config paths its flags or else its variables
// name, made paths under dir. An error when one of the three is not named.
func mountedConfig(c container, dir string) (*Mounted, error) {
	mt := &Mounted{}
	env := map[string]string{}
	for _, e := range c.Env {
		switch {
		case e.Value != nil:
			env[e.Name] = *e.Value
			mt.Env = append(mt.Env, e.Name+"="+*e.Value)
		case e.ValueFrom["secretKeyRef"] != nil:
			env[e.Name] = SecretPlaceholder
			mt.Env = append(mt.Env, e.Name+"="+SecretPlaceholder)
		}
	}
	if err := placeSecretFiles(mt, env, dir); err != nil {
		return nil, err
	}
	mt.Config = cmp.Or(flagValue(c.Args, "config", "c"), env["ADAPTER_CONFIG_PATH"], env["HYPERFLEET_ADAPTER_CONFIG"])
	mt.TaskConfig = cmp.Or(flagValue(c.Args, "task-config", "t"), env["ADAPTER_TASK_CONFIG_PATH"], env["HYPERFLEET_TASK_CONFIG"])
	mt.BrokerConfig = cmp.Or(flagValue(c.Args, "broker-config", ""), env["BROKER_CONFIG_FILE"])
	for _, p := range []*string{&mt.Config, &mt.TaskConfig, &mt.BrokerConfig} {
		if *p == "" {
			return nil, errors.New("the Deployment does not name the adapter config, task config and broker config files")
		}
		*p = filepath.Join(dir, *p)
	}
	return mt, nil
}

// secretFilePlaceholders are the files the adapter reads at start-up
// (validate too) that a Deployment names by environment variable and
// mounts from a Secret the chart does not render (the operator makes it):
// the variable, and placeholder content of the shape validate checks.
var secretFilePlaceholders = map[string]string{
	"GOOGLE_APPLICATION_CREDENTIALS": `{"type": "service_account"}`,
}

// placeSecretFiles writes, under dir, a placeholder for each such file the
// environment names and points its variable there, as the Secret's volume
// would hold it in the pod.
func placeSecretFiles(mt *Mounted, env map[string]string, dir string) error {
	for name, content := range secretFilePlaceholders {
		path, ok := env[name]
		if !ok || !filepath.IsAbs(path) {
			continue
		}
		target := filepath.Join(dir, path)
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(target, []byte(content), 0o600); err != nil {
			return err
		}
		for i, kv := range mt.Env {
			if strings.HasPrefix(kv, name+"=") {
				mt.Env[i] = name + "=" + target
			}
		}
	}
	return nil
}

// flagValue returns the value of --long or -short in args (--long=v,
// --long v, -s v, -s=v), the last one when repeated.
func flagValue(args []string, long, short string) string {
	var v string
	for i := 0; i < len(args); i++ {
		a := args[i]
		for _, name := range []string{"--" + long, "-" + short} {
			if name == "-" {
				continue
			}
			switch {
			case a == name && i+1 < len(args):
				v = args[i+1]
			case strings.HasPrefix(a, name+"="):
				v = strings.TrimPrefix(a, name+"=")
			}
		}
	}
	return v
}

// Validate runs `bundle-adapter validate` (adapter is the binary) on the
// configuration the rendered Deployment mounts, written under dir, with the
// Deployment's environment (and none of the caller's adapter or broker
// variables). ok is false when there is nothing to validate: the adapter
// config ConfigMap is made elsewhere (adapterConfig.create: false).
func Validate(adapter string, objs []Object, dir string) (out []byte, ok bool, err error) {
	hasCM := false
	for _, o := range objs {
		hasCM = hasCM || o.Kind == "ConfigMap" && o.Metadata.Labels["app.kubernetes.io/component"] == "adapter-config"
	}
	if !hasCM {
		return nil, false, nil
	}
	m, err := Mount(objs, dir)
	if err != nil {
		return nil, true, err
	}
	cmd := exec.Command(adapter, "validate", "--config", m.Config, "--task-config", m.TaskConfig, "--broker-config", m.BrokerConfig)
	cmd.Env = append(cleanEnv(), m.Env...)
	out, err = cmd.CombinedOutput()
	if err != nil {
		return out, true, fmt.Errorf("bundle-adapter validate on the mounted configuration: %v\n%s\nenv: %v", err, out, m.Env)
	}
	return out, true, nil
}

// cleanEnv is this process's environment without the variables that set
// adapter or broker config values, so that only the Deployment's count.
func cleanEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(name, "HYPERFLEET_") || strings.HasPrefix(name, "BROKER_") || strings.HasPrefix(name, "SUBSCRIBER_") ||
			strings.HasPrefix(name, "ADAPTER_") || name == "LOG_LEVEL" || name == "LOG_FORMAT" || name == "LOG_OUTPUT" {
			continue
		}
		env = append(env, kv)
	}
	return env
}
