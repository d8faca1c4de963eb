//go:build !unix

package cli

// lockDataFolder does nothing where flock is missing: one serve process per data folder is the
// operator's to keep.
func lockDataFolder(string) (func(), error) { return func() {}, nil }
