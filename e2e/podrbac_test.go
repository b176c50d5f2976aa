package e2e

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/bundle-adapter/bundle-adapter/internal/stacktest"
)

// apiVerbs are the verbs the API server authorizes on a resource: the
// least-privilege check asks about every one of them.
var apiVerbs = []string{"get", "list", "watch", "create", "update", "patch", "delete", "deletecollection"}

// grantedVerbs are those the chart grants the kubernetes transport
// (charts/bundle-adapter/templates/_helpers.tpl, bundle-adapter.rbacRules).
var grantedVerbs = []string{"get", "list", "create", "patch", "delete"}

// TestPodKubeTransportRBAC installs the chart with rbac.create on a
// cluster that runs pods, with the kubernetes transport's task config
// (testdata/kube: a ConfigMap and a Job per cluster) and the in-cluster
// config: the pod creates and deletes through the service account and the
// Role the chart grants, and nothing more is allowed: the API server
// answers every verb as granted or not exactly as the chart says, and
// refuses a real update and watch made with the pod's own token.
func TestPodKubeTransportRBAC(t *testing.T) {
	st := requireKubeStack(t)
	pc := requirePodCluster(t)
	api := newAPI(t)
	topic := unique("e2e-podkube-")
	ns := topic
	dir := t.TempDir()
	files := stacktest.FilesIn(dir)
	adapterCfg := stacktest.AdapterConfig{Name: adapterName(topic), LogLevel: "debug",
		APIURL: api.URL, APITimeout: 5 * time.Second, APIRetryAttempts: 2,
		SubscriptionID: "e2e", Topic: topic, InCluster: true}.YAML()
	if err := stacktest.WriteFiles(files, adapterCfg, rabbitBroker(st, topic)); err != nil {
		t.Fatal(err)
	}
	r := installChart(t, pc, chartInstall{
		ns: ns,
		values: map[string]any{
			"adapterConfig": map[string]any{"hyperfleetApi": map[string]any{"baseUrl": api.URL}, "log": map[string]any{"level": "debug"}},
			"rbac":          map[string]any{"create": true, "namespaces": []string{ns}, "resources": []string{"configmaps", "jobs"}},
			// Today the chart refuses adapterTaskConfig.yaml beside its
			// default files (mutually exclusive): hyperfleet-infra's
			// --set-file install needs them removed.
			"adapterTaskConfig": map[string]any{"files": nil},
		},
		setFiles: map[string]string{"adapterConfig.yaml": files.Adapter, "adapterTaskConfig.yaml": "testdata/kube/task-config.yaml",
			"broker.yaml": files.Broker},
		env: map[string]string{"E2E_KUBE_NAMESPACE": ns},
	})
	p := r.waitReady(120 * time.Second)

	t.Run("the transport creates and deletes with the chart's RBAC", func(t *testing.T) {
		id := unique("c")
		api.setCluster(id, 1, nil)
		if s := podReconcile(t, st, api, topic, id, 1); condition(s, "Health") != "True/Healthy" {
			t.Fatalf("create: Health %s: %v", condition(s, "Health"), s["conditions"])
		}
		if _, err := r.kc.CoreV1().ConfigMaps(ns).Get(context.Background(), "settings-"+id, metav1.GetOptions{}); err != nil {
			t.Fatalf("the ConfigMap the pod created: %v", err)
		}
		if _, err := r.kc.BatchV1().Jobs(ns).Get(context.Background(), "probe-"+id, metav1.GetOptions{}); err != nil {
			t.Fatalf("the Job the pod created: %v", err)
		}
		api.setCluster(id, 2, map[string]any{"deleted_time": time.Now().UTC().Format(time.RFC3339)})
		eventually(t, 90*time.Second, "the ConfigMap deleted by the pod", func() error {
			s := podReconcile(t, st, api, topic, id, 2)
			if h := condition(s, "Health"); h != "True/Healthy" {
				return fmt.Errorf("delete: Health %s", h)
			}
			_, err := r.kc.CoreV1().ConfigMaps(ns).Get(context.Background(), "settings-"+id, metav1.GetOptions{})
			if !apierrors.IsNotFound(err) {
				return fmt.Errorf("ConfigMap still there (%v)", err)
			}
			return nil
		})
	})

	sa := p.Spec.ServiceAccountName
	user := "system:serviceaccount:" + ns + ":" + sa
	t.Run("every verb answered as the chart grants", func(t *testing.T) {
		for _, res := range []authorizationv1.ResourceAttributes{
			{Namespace: ns, Resource: "configmaps"}, {Namespace: ns, Group: "batch", Resource: "jobs"},
			{Namespace: "default", Resource: "configmaps"}, {Namespace: ns, Resource: "secrets"},
		} {
			for _, verb := range apiVerbs {
				res.Verb = verb
				want := res.Namespace == ns && res.Resource != "secrets" && slices.Contains(grantedVerbs, verb)
				if got := allowed(t, r.kc, user, res); got != want {
					t.Errorf("%s %s %s/%s in %s: allowed %v, want %v", user, verb, res.Group, res.Resource, res.Namespace, got, want)
				}
			}
		}
	})
	t.Run("the pod's token is refused a verb not granted", func(t *testing.T) {
		kc := tokenClient(t, pc.Kubeconfig, r.kc, ns, sa)
		ctx := context.Background()
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "rbac-probe", Namespace: ns}}
		if _, err := kc.CoreV1().ConfigMaps(ns).Create(ctx, cm, metav1.CreateOptions{}); err != nil {
			t.Fatalf("create (granted): %v", err)
		}
		if _, err := kc.CoreV1().ConfigMaps(ns).Update(ctx, cm, metav1.UpdateOptions{}); !apierrors.IsForbidden(err) {
			t.Errorf("update (not granted): %v, want Forbidden", err)
		}
		if w, err := kc.CoreV1().ConfigMaps(ns).Watch(ctx, metav1.ListOptions{}); !apierrors.IsForbidden(err) {
			if w != nil {
				w.Stop()
			}
			t.Errorf("watch (not granted): %v, want Forbidden", err)
		}
		if _, err := kc.CoreV1().Secrets(ns).List(ctx, metav1.ListOptions{}); !apierrors.IsForbidden(err) {
			t.Errorf("list secrets (not granted): %v, want Forbidden", err)
		}
		if err := kc.CoreV1().ConfigMaps(ns).Delete(ctx, cm.Name, metav1.DeleteOptions{}); err != nil {
			t.Errorf("delete (granted): %v", err)
		}
	})
}

// podReconcile publishes one event and returns the status PUT it caused.
func podReconcile(t *testing.T, st *stack, api *hyperfleetAPI, topic, id string, generation int) map[string]any {
	t.Helper()
	before := api.StatusCount(id)
	publish(t, st, topic, id, generation)
	eventually(t, 60*time.Second, "a status PUT for "+id, func() error {
		if api.StatusCount(id) <= before {
			return fmt.Errorf("%d status PUTs so far", before)
		}
		return nil
	})
	return api.LastStatus(id)
}

// allowed asks the API server's authorizer whether user may do res.
func allowed(t *testing.T, kc *kubernetes.Clientset, user string, res authorizationv1.ResourceAttributes) bool {
	t.Helper()
	sar := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
		User: user, Groups: []string{"system:serviceaccounts", "system:serviceaccounts:" + res.Namespace, "system:authenticated"},
		ResourceAttributes: &res}}
	out, err := kc.AuthorizationV1().SubjectAccessReviews().Create(context.Background(), sar, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("SubjectAccessReview: %v", err)
	}
	return out.Status.Allowed
}

// tokenClient is a client with a token of the service account, as the pod
// has it (TokenRequest), and the kubeconfig's server and CA.
func tokenClient(t *testing.T, kubeconfig string, admin *kubernetes.Clientset, ns, sa string) *kubernetes.Clientset {
	t.Helper()
	tok, err := admin.CoreV1().ServiceAccounts(ns).CreateToken(context.Background(), sa,
		&authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr(int64(600))}},
		metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("token for %s/%s: %v", ns, sa, err)
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	anon := rest.AnonymousClientConfig(cfg)
	anon.BearerToken = tok.Status.Token
	kc, err := kubernetes.NewForConfig(anon)
	if err != nil {
		t.Fatal(err)
	}
	return kc
}

func ptr[T any](v T) *T { return &v }
