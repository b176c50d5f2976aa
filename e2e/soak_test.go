package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The soak's 3-minute variant (docs/reliability.md, "Soak"): 200 clusters
// under paced load on the e2e stack's Maestro with simulated agents of its
// own (consumers, exchange, queue and source id prefixed uniquely), two
// adapter replicas, three faults (an API outage, a replica SIGKILLed and
// restarted, the replicas' RabbitMQ connections closed) and the final
// drain (a generation bump and an API outage overlapping the last round).
// The checker (bench/soak/check) must pass every invariant. About 4
// minutes.
func TestSoakThreeMinutes(t *testing.T) {
	st := requireStack(t)
	broker := os.Getenv("MAESTRO_BROKER_ADDR")
	if broker == "" {
		// The stack is up, so its env was exported without Maestro's agent
		// broker: a broken hack/stack.sh env, not a reason to skip.
		t.Fatal("MAESTRO_BROKER_ADDR is not set though the stack is up (eval \"$(hack/stack.sh env)\")")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "soak")
	if out, err := exec.Command("go", "build", "-o", bin, "../bench/soak").CombinedOutput(); err != nil {
		t.Fatalf("building bench/soak: %v\n%s", err, out)
	}
	prefix := strings.ReplaceAll(unique("soak"), "_", "-")
	cmd := exec.Command(bin, "--adapter-bin", adapterBin, "--hack-dir", "../hack", "--out", filepath.Join(dir, "run"),
		"--example", "../config/examples/onprem",
		"--maestro-rest", st.restURL, "--maestro-grpc", st.grpcAddr, "--maestro-broker", broker,
		"--rabbitmq-url", st.rabbitURL, "--prefix", prefix,
		"--duration", "3m", "--clusters", "200", "--consumers", "4", "--seed", "31",
		"--faults", "api-503,adapter-kill,rabbitmq-close")
	out, err := cmd.CombinedOutput()
	t.Logf("soak output:\n%s", out)
	if err != nil {
		t.Fatalf("the soak failed: %v (histories and logs in %s, removed after the test)", err, dir)
	}
}
