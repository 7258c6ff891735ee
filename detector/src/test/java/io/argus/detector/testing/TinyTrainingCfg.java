package io.argus.detector.testing;

/**
 * The smallest cfg that trains the way a real one does: two batch-normalized 3x3 stride-2 convolutions (leaky, then mish,
 * the two activations of the shipped cfgs), a linear 1x1 head and a [yolo] layer with three small anchors, on 32 x 32
 * inputs, batch 4 in 2 subdivisions (so gradient accumulation is exercised), no burn-in. Training tests share it so
 * that a change in what "a tiny training network" means happens once.
 */
public final class TinyTrainingCfg {
    private TinyTrainingCfg() {}

    /** The cfg's text for {@code classes} classes, with {@code netLines} (e.g. {@code "max_batches=40"}) added to [net]. */
    public static String text(int classes, String... netLines) {
        StringBuilder net = new StringBuilder();
        for (String line : netLines) net.append(line).append('\n');
        return """
                [net]
                batch=4
                subdivisions=2
                width=32
                height=32
                channels=3
                learning_rate=0.001
                burn_in=0
                %s[convolutional]
                batch_normalize=1
                filters=8
                size=3
                stride=2
                pad=1
                activation=leaky
                [convolutional]
                batch_normalize=1
                filters=8
                size=3
                stride=2
                pad=1
                activation=mish
                [convolutional]
                size=1
                stride=1
                pad=1
                filters=%d
                activation=linear
                [yolo]
                mask=0,1,2
                anchors=6,6, 10,10, 16,16
                classes=%d
                num=3
                """.formatted(net, 3 * (classes + 5), classes);
    }
}
