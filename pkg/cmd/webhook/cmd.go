// Package webhook is the `webhook` subcommand: the admission server the
// operator deploys into openshift-workload-access.
package webhook

import (
	"context"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/openshift/cluster-workload-access-operator/pkg/webhook"
)

// Options are the subcommand's flags.
type Options struct {
	ListenAddress      string
	CertFile, KeyFile  string
	CertReloadInterval time.Duration
	ShutdownDelay      time.Duration
	ShutdownTimeout    time.Duration
}

// NewOptions returns the defaults the operator's Deployment relies on.
func NewOptions() *Options {
	return &Options{
		ListenAddress:      ":9443",
		CertFile:           "/var/run/secrets/serving-cert/tls.crt",
		KeyFile:            "/var/run/secrets/serving-cert/tls.key",
		CertReloadInterval: 10 * time.Second,
		ShutdownDelay:      5 * time.Second,
		ShutdownTimeout:    30 * time.Second,
	}
}

// AddFlags binds the options to flags.
func (o *Options) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&o.ListenAddress, "listen", o.ListenAddress, "host:port to serve HTTPS on (admission, /healthz, /readyz, /metrics).")
	fs.StringVar(&o.CertFile, "tls-cert-file", o.CertFile, "Serving certificate (PEM); re-read when it changes.")
	fs.StringVar(&o.KeyFile, "tls-private-key-file", o.KeyFile, "Serving key (PEM); re-read when it changes.")
	fs.DurationVar(&o.CertReloadInterval, "cert-reload-interval", o.CertReloadInterval, "How often to check the serving pair for a rotation.")
	fs.DurationVar(&o.ShutdownDelay, "shutdown-delay", o.ShutdownDelay, "How long /readyz fails before the listener closes on SIGTERM.")
	fs.DurationVar(&o.ShutdownTimeout, "shutdown-timeout", o.ShutdownTimeout, "How long in-flight admissions may take to finish on SIGTERM.")
}

// NewCommand returns `webhook`.
func NewCommand(ctx context.Context) *cobra.Command {
	o := NewOptions()
	cmd := &cobra.Command{
		Use:   "webhook",
		Short: "Serve the mutating admission webhook that injects access into pods",
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, stop := signal.NotifyContext(ctx, syscall.SIGTERM, syscall.SIGINT)
			defer stop()
			return o.Run(ctx)
		},
	}
	o.AddFlags(cmd.Flags())
	return cmd
}

// Run serves until ctx ends and the server has drained.
func (o *Options) Run(ctx context.Context) error {
	server, err := webhook.New(webhook.Config{
		ListenAddress:      o.ListenAddress,
		CertFile:           o.CertFile,
		KeyFile:            o.KeyFile,
		CertReloadInterval: o.CertReloadInterval,
		ShutdownDelay:      o.ShutdownDelay,
		ShutdownTimeout:    o.ShutdownTimeout,
		// The subscription and pod identity mutators plug in here.
		Mutators: nil,
	})
	if err != nil {
		return err
	}
	return server.Run(ctx)
}
