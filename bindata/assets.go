// Package bindata embeds the manifests the operator applies at runtime.
// CVO-applied manifests live in manifests/ instead; what is here is owned and
// restored by the operator itself.
package bindata

import (
	"embed"
	"fmt"
)

//go:embed operand consolesamples
var files embed.FS

// Asset returns the named manifest, e.g. "operand/webhook-service.yaml".
func Asset(name string) ([]byte, error) {
	return files.ReadFile(name)
}

// MustAsset is Asset for names known at compile time.
func MustAsset(name string) []byte {
	b, err := Asset(name)
	if err != nil {
		panic(fmt.Sprintf("bindata: %v", err))
	}
	return b
}
