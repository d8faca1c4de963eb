// OfficialLike does in one JVM what a warm official validator does with each document: the schema
// check with the JDK's validator (Xerces) and the rules with Saxon-HE, the rules writing their SVRL
// report to memory. It times rounds over the documents and prints, per round, the mean time per
// document in nanoseconds: "round R NS"; then how many bytes the rules wrote in all ("report-bytes
// N"), which tells a run that did the work from one that wrote nothing. Arguments: the stylesheet, the
// schema ("-" for none), the number of rounds, the documents. Part of the tests (internal/oracle);
// nothing in the product runs it.

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import javax.xml.XMLConstants;
import javax.xml.transform.stream.StreamSource;
import javax.xml.validation.Schema;
import javax.xml.validation.SchemaFactory;
import javax.xml.validation.Validator;
import net.sf.saxon.s9api.Processor;
import net.sf.saxon.s9api.XsltTransformer;
import org.xml.sax.ErrorHandler;
import org.xml.sax.SAXParseException;

public class OfficialLike {
	public static void main(String[] args) throws Exception {
		Processor saxon = new Processor(false);
		XsltTransformer rules = saxon.newXsltCompiler().compile(new StreamSource(new File(args[0]))).load();
		Validator schema = null;
		if (!args[1].equals("-")) {
			Schema s = SchemaFactory.newInstance(XMLConstants.W3C_XML_SCHEMA_NS_URI).newSchema(new File(args[1]));
			schema = s.newValidator();
			schema.setErrorHandler(new ErrorHandler() { // count nothing, stop at nothing: every error is read
				public void warning(SAXParseException e) {}
				public void error(SAXParseException e) {}
				public void fatalError(SAXParseException e) {}
			});
		}
		int rounds = Integer.parseInt(args[2]);
		List<byte[]> docs = new ArrayList<>();
		for (int i = 3; i < args.length; i++) docs.add(Files.readAllBytes(Paths.get(args[i])));
		long reportBytes = 0;
		for (int r = 0; r < rounds; r++) {
			long start = System.nanoTime();
			for (byte[] doc : docs) {
				if (schema != null) schema.validate(new StreamSource(new ByteArrayInputStream(doc)));
				ByteArrayOutputStream report = new ByteArrayOutputStream();
				rules.setSource(new StreamSource(new ByteArrayInputStream(doc)));
				rules.setDestination(saxon.newSerializer(report));
				rules.transform();
				reportBytes += report.size();
			}
			System.out.println("round " + r + " " + (System.nanoTime() - start) / docs.size());
		}
		System.out.println("report-bytes " + reportBytes);
	}
}
