package dev.bulwark.spring.app;

import org.springframework.boot.autoconfigure.SpringBootApplication;

/** The application the annotation tests start: its beans are the services of this package. */
@SpringBootApplication
public class TestApplication {
}
