// Command ociregistry runs the private OCI registry of the tests and the rig
// (package internal/ociregistry): token authentication as real registries,
// one account, and the demo disk image pushed as the OCI artifact Ironic's
// OCI image service expects.
//
//	OCIREGISTRY_PASSWORD=... ociregistry -listen 127.0.0.1:8470 -user deployer -image demo.qcow2
//
// The password comes from the environment, not the command line (which
// other users of the machine can read). Without -image it makes a 64 MiB
// qcow2 with qemu-img, as the demo does. It prints the image's oci:// URL,
// then serves until SIGINT or SIGTERM. With -tls-cert and -tls-key it
// serves https (Ironic 2025.1's OCI client speaks nothing else; give
// Ironic the certificate, as scripts/ironic.sh does for its own through
// REQUESTS_CA_BUNDLE). Every authenticated pull is logged on stderr, one
// line each (ociregistry.Pull.String).
package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/google/go-containerregistry/pkg/v1/remote"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/cmdmain"
	"github.com/baremetal-tf/terraform-provider-baremetal/internal/ociregistry"
)

func main() {
	cmdmain.Run("ociregistry", func(ctx context.Context) error { return run(ctx, os.Args[1:], os.Stdout) })
}

func run(ctx context.Context, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("ociregistry", flag.ContinueOnError)
	listen := fs.String("listen", "127.0.0.1:8470", "address to listen on")
	user := fs.String("user", "deployer", "the account's user name")
	image := fs.String("image", "", "the disk image to push (default: a new 64 MiB qcow2 made with qemu-img)")
	repo := fs.String("repo", "demo/disk", "repository of the image")
	tag := fs.String("tag", "latest", "tag of the image")
	arch := fs.String("arch", "amd64", "platform architecture of the image")
	certFile := fs.String("tls-cert", "", "serve https with this certificate (PEM; with -tls-key)")
	keyFile := fs.String("tls-key", "", "the certificate's key (PEM)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	password := os.Getenv("OCIREGISTRY_PASSWORD")
	if password == "" {
		return errors.New("set OCIREGISTRY_PASSWORD to the account's password")
	}
	data, err := diskImage(*image)
	if err != nil {
		return err
	}
	file := "demo.qcow2"
	if *image != "" {
		file = filepath.Base(*image)
	}
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		return err
	}
	reg := ociregistry.New(*user, password)
	reg.OnPull(func(p ociregistry.Pull) { fmt.Fprintln(os.Stderr, p) })
	srv := &http.Server{Handler: reg, ReadHeaderTimeout: 30 * time.Second}
	var opts []remote.Option
	if (*certFile == "") != (*keyFile == "") {
		return errors.New("-tls-cert and -tls-key go together")
	}
	if *certFile != "" {
		pem, err := os.ReadFile(*certFile)
		if err != nil {
			return err
		}
		roots := x509.NewCertPool()
		if !roots.AppendCertsFromPEM(pem) {
			return fmt.Errorf("%s holds no PEM certificate", *certFile)
		}
		opts = append(opts, remote.WithTransport(&http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots, MinVersion: tls.VersionTLS12}}))
		go func() { _ = srv.ServeTLS(ln, *certFile, *keyFile) }()
	} else {
		go func() { _ = srv.Serve(ln) }()
	}
	defer func() { _ = srv.Close() }()
	p, err := ociregistry.Push(ctx, ln.Addr().String(), *repo, *tag, *user, password,
		ociregistry.DiskImage{Data: data, FileName: file, DiskType: "qcow2", Arch: *arch}, opts...)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "%s blob %s\n", p.URL, p.BlobDigest)
	<-ctx.Done()
	return nil
}

// diskImage reads path, or makes a qcow2 with qemu-img when it is empty.
func diskImage(path string) ([]byte, error) {
	if path != "" {
		return os.ReadFile(path)
	}
	return ociregistry.DemoQcow2()
}
