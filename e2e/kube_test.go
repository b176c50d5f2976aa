package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
)

// holdFinalizer is the finalizer a test puts on an applied object to hold
// its deletion, as a slow controller would.
const holdFinalizer = "e2e.bundle-adapter.io/hold"

func kubeClient(t *testing.T, st *stack) *kubernetes.Clientset {
	t.Helper()
	cfg, err := clientcmd.BuildConfigFromFlags("", st.kubeconfig)
	if err != nil {
		t.Fatalf("kubeconfig: %v", err)
	}
	c, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// jobUID returns the UID and the GENERATION env value of the validation Job.
func jobState(kc *kubernetes.Clientset, name string) (uid, generation string, deleting bool, err error) {
	job, err := kc.BatchV1().Jobs("default").Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		return "", "", false, err
	}
	for _, e := range job.Spec.Template.Spec.Containers[0].Env {
		if e.Name == "GENERATION" {
			generation = e.Value
		}
	}
	return string(job.UID), generation, job.DeletionTimestamp != nil, nil
}

func setJobFinalizers(t *testing.T, kc *kubernetes.Clientset, name string, finalizers []string) {
	t.Helper()
	patch, _ := json.Marshal(map[string]any{"metadata": map[string]any{"finalizers": finalizers}})
	if _, err := kc.BatchV1().Jobs("default").Patch(context.Background(), name, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		t.Fatalf("set finalizers on job %s: %v", name, err)
	}
}

func configMapData(kc *kubernetes.Clientset, ns, name string) (map[string]string, error) {
	cm, err := kc.CoreV1().ConfigMaps(ns).Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	return cm.Data, nil
}

func jobCount(kc *kubernetes.Clientset, clusterID string) (int, error) {
	list, err := kc.BatchV1().Jobs("default").List(context.Background(), metav1.ListOptions{
		LabelSelector: fmt.Sprintf("hyperfleet.io/cluster-id=%s", clusterID)})
	if err != nil {
		return 0, err
	}
	return len(list.Items), nil
}

// clearFinalizers removes a test's finalizers when a test ends, whatever
// happened, so no Job stays stuck in the shared API server.
func clearFinalizers(kc *kubernetes.Clientset, name string) {
	patch := []byte(`{"metadata":{"finalizers":null}}`)
	_, _ = kc.BatchV1().Jobs("default").Patch(context.Background(), name, types.MergePatchType, patch, metav1.PatchOptions{})
}
