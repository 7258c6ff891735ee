package io.argus.pipeline.doctor;

import java.awt.GraphicsEnvironment;
import java.util.Arrays;
import java.util.List;

/** Whether Java2D finds a font: {@code argus detect --out} draws class labels with one. */
final class FontCheck implements Check {
    private static final String FIX = "apt-get install --no-install-recommends fontconfig fonts-dejavu-core";
    /** The JDK's logical families: listed even when no font file is behind them. */
    private static final List<String> LOGICAL = List.of("Dialog", "DialogInput", "Monospaced", "SansSerif", "Serif");

    @Override
    public String name() { return "Fonts"; }

    @Override
    public List<Finding> run() {
        if (System.getProperty("java.awt.headless") == null) System.setProperty("java.awt.headless", "true");
        String[] families;
        try {
            families = GraphicsEnvironment.getLocalGraphicsEnvironment().getAvailableFontFamilyNames();
        } catch (Throwable e) { // a system without fontconfig fails inside the JDK's font manager
            return List.of(Finding.warn(name(), "Java2D cannot list fonts: " + Doctor.describe(e)
                    + " (labels of `argus detect --out` fail)", FIX));
        }
        List<String> real = Arrays.stream(families).filter(f -> !LOGICAL.contains(f)).toList();
        if (real.isEmpty()) {
            return List.of(Finding.warn(name(), "no font installed (labels of `argus detect --out` fail)", FIX));
        }
        return List.of(Finding.ok(name(), real.size() + " font families (e.g. " + real.get(0) + ")"));
    }
}
