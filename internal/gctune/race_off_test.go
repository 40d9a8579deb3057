//go:build !race

package gctune

const raceOn = false
