/**
 * Config files (YAML or JSON) mapped onto typed records: {@link PolyHeConfig} at the root,
 * {@link InferenceConfig} for inference (engine, attention, approximators, calibration, the backend a server
 * evaluates on), {@link AttentionBenchmarkConfig}. Unknown keys and bad values are {@link ConfigException}s that name
 * the key, the value and what was expected.
 */
package dev.polyhe.core.config;
