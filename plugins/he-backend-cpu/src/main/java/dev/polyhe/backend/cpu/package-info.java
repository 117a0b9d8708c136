/**
 * The HE backend {@code ckks-cpu}: the RNS-CKKS scheme of {@code dev.polyhe.ckks} with its ring arithmetic on the
 * JVM's threads (the host ring executor), pure Java.
 */
package dev.polyhe.backend.cpu;
