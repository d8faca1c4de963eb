package cli

import "os"

// The tests see the example configuration as the binary does: main embeds the file at the root.
func init() {
	b, err := os.ReadFile("../../config.example.toml")
	if err != nil {
		panic(err)
	}
	ExampleConfig = string(b)
}
