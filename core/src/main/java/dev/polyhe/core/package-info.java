/**
 * The façade a host application embeds: {@link PolyHe} (plugins, config, backends) and
 * {@link PrivateInference} (client and server roles of encrypted inference on one checkpoint, with
 * {@link ClientKeys} and {@link ServerKeys}). Everything below it (engines, configs, plugins) is reached from
 * here.
 */
package dev.polyhe.core;
