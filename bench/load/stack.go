package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"strconv"
	"strings"

	"github.com/bundle-adapter/bundle-adapter/internal/stacktest"
	"github.com/bundle-adapter/bundle-adapter/maestroclient/agentsim"
)

// bundlesTracked counts the bundles of source in Maestro (the total of
// one REST list).
func bundlesTracked(ctx context.Context, rest, source string) (int, error) {
	return stacktest.ListBundles(ctx, rest, fmt.Sprintf("source='%s'", source), 1, nil)
}

// appliedPageSize is the page of appliedInMaestro's list.
const appliedPageSize = 400

// appliedInMaestro counts the bundles of source placed on consumer whose
// Applied condition is True, by a paged REST list of Maestro's bundles
// (the agent's status reports, as Maestro stored them).
func appliedInMaestro(ctx context.Context, rest, source, consumer string) (int, error) {
	applied := 0
	_, err := stacktest.ListBundles(ctx, rest, fmt.Sprintf("source='%s' and consumer_name='%s'", source, consumer), appliedPageSize,
		func(b stacktest.Bundle) {
			if b.Condition("Applied") == "True" {
				applied++
			}
		})
	if err != nil {
		return 0, err
	}
	return applied, nil
}

// startAgents connects one simulated agent per consumer; each reports the
// bundles it receives applied and available and confirms deletions at once.
// They run as the real agent Maestro is built with (NoDeletionSweep): the
// sdk-go in this module otherwise lists, copying, every stored work of
// every agent each 2 s, and at 10,000 clusters their collector then took
// 0.3 to 0.5 s of CPU in one burst every 17 s even with nothing to do: a
// burst no production adapter shares its cores with, which the paced
// phase measured as the adapter's tail.
//
// applyRate, when positive, bounds how many bundles per second each agent
// reports applied (agentsim.Options.ApplyRate).
func startAgents(ctx context.Context, broker string, consumers []string, applyRate float64, log *slog.Logger) ([]*agentsim.Agent, error) {
	var agents []*agentsim.Agent
	for _, c := range consumers {
		a, err := agentsim.Start(ctx, agentsim.Options{BrokerAddress: broker, Consumer: c,
			Delete: agentsim.DeleteAtOnce, NoDeletionSweep: true, ApplyRate: applyRate, Workers: workersFor(applyRate), Logger: log})
		if err != nil {
			stopAgents(agents)
			return nil, fmt.Errorf("agent for %s: %w", c, err)
		}
		agents = append(agents, a)
	}
	return agents, nil
}

// workersFor is how many bundles an agent syncs at once: an agent with a
// stated apply rate (the one-consumer phase's, which must keep up with the
// adapter) gets 8, since one worker answers about 50 bundles/s here (each
// status a synchronous publish through Maestro); the others keep one, as
// the runs before it measured.
func workersFor(applyRate float64) int {
	if applyRate > 0 {
		return 8
	}
	return 1
}

// appliedBy is how many bundles the agents reported applied so far.
func appliedBy(agents []*agentsim.Agent) int64 {
	var n int64
	for _, a := range agents {
		n += a.Applied()
	}
	return n
}

func stopAgents(agents []*agentsim.Agent) {
	for _, a := range agents {
		a.Stop()
	}
}

// pgSessions is how many sessions (connections) PostgreSQL has opened on
// db since its statistics were reset (pg_stat_database.sessions), through
// psql with the MAESTRO_DB_* settings hack/maestro.sh uses.
func pgSessions(ctx context.Context, db string) (float64, error) {
	env := func(k, def string) string {
		if v := os.Getenv(k); v != "" {
			return v
		}
		return def
	}
	cmd := exec.CommandContext(ctx, "psql", "-h", env("MAESTRO_DB_HOST", "127.0.0.1"), "-p", env("MAESTRO_DB_PORT", "5432"),
		"-U", env("MAESTRO_DB_USER", "postgres"), "-d", "postgres", "-qtAc",
		fmt.Sprintf("select sessions from pg_stat_database where datname = '%s'", strings.ReplaceAll(db, "'", "''")))
	cmd.Env = append(os.Environ(), "PGPASSWORD="+os.Getenv("MAESTRO_DB_PASSWORD"))
	out, err := cmd.Output()
	if err != nil {
		return 0, fmt.Errorf("psql: %w", err)
	}
	return strconv.ParseFloat(strings.TrimSpace(string(out)), 64)
}
