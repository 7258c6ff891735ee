package io.argus.detector;

/** One detected object: class, confidence (objectness x class probability) and box in source pixels. */
public record Detection(int classId, String className, float confidence, Box box) {}
