package collector

import (
	"context"
	"fmt"
	"net"
	"time"

	"github.com/open-telemetry/opentelemetry-collector-contrib/exporter/fileexporter"
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/confmap"
	"go.opentelemetry.io/collector/confmap/provider/yamlprovider"
	"go.opentelemetry.io/collector/exporter"
	"go.opentelemetry.io/collector/otelcol"
	"go.opentelemetry.io/collector/receiver"
	"go.opentelemetry.io/collector/receiver/otlpreceiver"
	"go.opentelemetry.io/collector/service/telemetry/otelconftelemetry"
)

// Collector is a running in-process Collector: OTLP/HTTP in, OTLP JSON lines
// out to a file.
type Collector struct {
	// Endpoint is the host:port of the OTLP/HTTP receiver.
	Endpoint string
	col      *otelcol.Collector
	done     chan error
}

// Start runs a Collector that receives OTLP/HTTP on a free 127.0.0.1 port
// and writes every trace batch to path as one OTLP JSON line. Stop it with
// Shutdown, then read the file.
func Start(ctx context.Context, path string) (*Collector, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	endpoint := l.Addr().String()
	if err := l.Close(); err != nil {
		return nil, err
	}
	cfg := fmt.Sprintf(`receivers:
  otlp:
    protocols:
      http:
        endpoint: %q
exporters:
  file:
    path: %q
service:
  telemetry:
    metrics:
      level: none
    logs:
      level: error
  pipelines:
    traces:
      receivers: [otlp]
      exporters: [file]
`, endpoint, path)
	factories := func() (otelcol.Factories, error) {
		recv, err := otelcol.MakeFactoryMap[receiver.Factory](otlpreceiver.NewFactory())
		if err != nil {
			return otelcol.Factories{}, err
		}
		exp, err := otelcol.MakeFactoryMap[exporter.Factory](fileexporter.NewFactory())
		if err != nil {
			return otelcol.Factories{}, err
		}
		return otelcol.Factories{Receivers: recv, Exporters: exp, Telemetry: otelconftelemetry.NewFactory()}, nil
	}
	col, err := otelcol.NewCollector(otelcol.CollectorSettings{
		Factories: factories,
		BuildInfo: component.BuildInfo{Command: "ragtriage-collector-test", Description: "ragtriage round trip", Version: "test"},
		ConfigProviderSettings: otelcol.ConfigProviderSettings{ResolverSettings: confmap.ResolverSettings{
			URIs:              []string{"yaml:" + cfg},
			ProviderFactories: []confmap.ProviderFactory{yamlprovider.NewFactory()},
		}},
		SkipSettingGRPCLogger: true,
	})
	if err != nil {
		return nil, err
	}
	c := &Collector{Endpoint: endpoint, col: col, done: make(chan error, 1)}
	go func() { c.done <- col.Run(context.WithoutCancel(ctx)) }()
	deadline := time.NewTimer(30 * time.Second)
	defer deadline.Stop()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for col.GetState() != otelcol.StateRunning {
		select {
		case err := <-c.done:
			return nil, fmt.Errorf("collector exited while starting: %w", err)
		case <-deadline.C:
			col.Shutdown()
			return nil, fmt.Errorf("collector did not start within 30s (state %v)", col.GetState())
		case <-tick.C:
		}
	}
	return c, nil
}

// Shutdown stops the Collector (flushing the file) and waits for it.
func (c *Collector) Shutdown() error {
	c.col.Shutdown()
	return <-c.done
}
