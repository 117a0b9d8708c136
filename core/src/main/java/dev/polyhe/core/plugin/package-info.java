/**
 * Plugin discovery: the {@link PluginRegistry} finds plugins on the module path and in a plugins folder (one
 * JPMS module layer each) through {@code ServiceLoader}, checks their API version, and describes each
 * ({@link PluginDescriptor}: kind, name, module, version, origin). An unknown name or a plugin that fails to load
 * is an error naming what was asked for and what exists.
 */
package dev.polyhe.core.plugin;
