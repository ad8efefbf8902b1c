// Package operation runs intents: it turns connection settings into an SSH
// pool, builds the engine with the scenario packs' scripts, runs a plan and
// reads secret artifacts and host facts back. It is plain Go shared by the
// provider's resources, data sources and ephemeral resources; a CLI could
// drive it the same way.
package operation
