package io.argus.pipeline.cli;

import io.argus.detector.BgrImage;
import io.argus.detector.DetectParams;
import io.argus.detector.Detection;
import io.argus.detector.Model;
import io.argus.detector.backends.Detector;
import io.argus.pipeline.json.DetectionJson;
import io.vertx.core.json.JsonObject;
import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.image.BufferedImage;
import java.io.File;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import javax.imageio.ImageIO;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code argus detect}: one JSON line per image with its detections. */
@Command(name = "detect", mixinStandardHelpOptions = true,
        description = {"Detect objects in images; prints one JSON line per image.", "Optionally draws the boxes into copies of the images (--out)."})
final class DetectCommand implements Callable<Integer> {
    @Mixin
    ModelOptions model = new ModelOptions();

    @Option(names = "--thresh", defaultValue = "0.25", description = "confidence threshold (default ${DEFAULT-VALUE})")
    float thresh;

    @Option(names = "--nms", defaultValue = "0.45", description = "NMS overlap threshold (default ${DEFAULT-VALUE})")
    float nms;

    @Option(names = "--backend", defaultValue = "auto", description = "cpu, cuda or auto (default ${DEFAULT-VALUE})")
    String backend;

    @Option(names = "--batch", defaultValue = "1", description = "images per forward pass (default ${DEFAULT-VALUE})")
    int batch;

    @Option(names = "--out", description = "annotated image path (one image), or a directory (several)")
    Path out;

    @Parameters(arity = "1..*", paramLabel = "IMAGE", description = "JPEG, PNG or BMP files")
    List<Path> images;

    @Override
    public Integer call() throws Exception {
        images.forEach(BgrImage::checkReadable);   // a bad path fails now, not after the network is built
        Model m = model.load(true);
        DetectParams params = new DetectParams(thresh, nms, null);
        Detector.Backend kind = Detector.Backend.valueOf(backend.toUpperCase(java.util.Locale.ROOT));
        try (Detector detector = Detector.open(m, new Detector.Options(kind, batch, params,
                CudaSystemProperties.inference()))) {
            for (int i = 0; i < images.size(); i += batch) {
                List<Path> chunk = images.subList(i, Math.min(images.size(), i + batch));
                List<BgrImage> decoded = chunk.stream().map(BgrImage::read).toList();
                List<List<Detection>> found = detector.detect(decoded);
                for (int j = 0; j < chunk.size(); j++) {
                    BgrImage img = decoded.get(j);
                    JsonObject line = new JsonObject().put("image", chunk.get(j).toString())
                            .put("width", img.width()).put("height", img.height())
                            .put("detections", DetectionJson.of(found.get(j)));
                    System.out.println(line.encode());
                    if (out != null) annotate(img, found.get(j), target(chunk.get(j)));
                }
            }
        }
        return 0;
    }

    private Path target(Path image) {
        if (images.size() == 1 && !out.toFile().isDirectory()) return out;
        out.toFile().mkdirs();
        String name = image.getFileName().toString();
        int dot = name.lastIndexOf('.');
        return out.resolve((dot > 0 ? name.substring(0, dot) : name) + "_argus.jpg");
    }

    static void annotate(BgrImage image, List<Detection> detections, Path file) throws java.io.IOException {
        BufferedImage canvas = image.toBufferedImage();
        Graphics2D g = canvas.createGraphics();
        g.setStroke(new BasicStroke(Math.max(2, image.width() / 300f)));
        g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, Math.max(12, image.width() / 50)));
        for (Detection d : detections) {
            Color c = Color.getHSBColor((d.classId() * 0.61803f) % 1f, 0.9f, 1f);
            g.setColor(c);
            g.drawRect(Math.round(d.box().x()), Math.round(d.box().y()), Math.round(d.box().w()),
                    Math.round(d.box().h()));
            g.drawString(String.format(java.util.Locale.ROOT, "%s %.2f", d.className(), d.confidence()),
                    d.box().x() + 3, Math.max(g.getFontMetrics().getAscent(), d.box().y() - 3));
        }
        g.dispose();
        String name = file.getFileName().toString().toLowerCase(java.util.Locale.ROOT);
        String format = name.endsWith(".png") ? "png" : "jpg";
        if (!ImageIO.write(canvas, format, new File(file.toString()))) {
            throw new java.io.IOException("cannot write " + file);
        }
    }
}
