/**
 * The {@code polyhe} command line (picocli): one class per command, the options they share as mixins, and the
 * error report that turns an input error into one line and exit code 2.
 */
package dev.polyhe.launcher;
