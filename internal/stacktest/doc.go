// Package stacktest is the one harness that drives the built
// `bundle-adapter serve` binary against real servers, shared by the
// end-to-end tests (e2e), the local demo (hack/demo), the load harness
// (bench/load) and the soak (bench/soak). It holds what they need alike and
// nothing of their own stories:
//
//   - Adapter: the adapter as a child process (config files, log file,
//     readiness, graceful stop, kill) and its /metrics;
//   - config writers: the adapter and RabbitMQ broker configs of a run, the
//     example's task config and bundles copied next to them, and edits of
//     both (ConsumerFromCluster, RewriteYAML); WriteFleetConfigs, all of it
//     for a run that spreads its clusters over many consumers;
//   - API: a recording HyperFleet API that serves clusters, records (or
//     hands over) every status PUT, and fails or holds PUTs on cue;
//   - Scrape: one read of a Prometheus text exposition, and the adapter's
//     Maestro request counts in it;
//   - Event: the Sentinel's reconcile CloudEvent, and Publisher, which
//     publishes it as the Sentinel does;
//   - CA: throwaway certificate authorities for TLS tests;
//   - DropRabbitMQ and CloseRabbitMQConnection: a run's RabbitMQ clean-up,
//     and a connection closed as an operator or a failover would;
//   - RegisterConsumers: a run's consumers registered in Maestro;
//   - ListBundles: Maestro's resource bundles of a search, page by page;
//   - FreeAddr and FreePorts: loopback ports;
//   - Forwarder: a TCP forwarder from an address pods reach to a loopback
//     service (the chart's pods on the local node's pod network).
//
// Production code never imports it. Functions that a binary uses return
// errors; the certificate helpers, used by tests only, take a testing.TB and
// fail the test instead.
package stacktest
