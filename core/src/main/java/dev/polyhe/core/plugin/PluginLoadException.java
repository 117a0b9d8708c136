package dev.polyhe.core.plugin;

import java.util.List;

/** Plugins that were refused; the message lists every problem, one per line, each naming the plugin. */
public class PluginLoadException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final transient List<String> problems;

    public PluginLoadException(List<String> problems) {
        super(
                problems.size() == 1
                        ? problems.get(0)
                        : problems.size() + " plugin problems:\n  " + String.join("\n  ", problems));
        this.problems = List.copyOf(problems);
    }

    public List<String> problems() {
        return problems;
    }
}
