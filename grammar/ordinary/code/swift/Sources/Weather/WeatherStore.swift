// policyc ordinary sample: an everyday Swift module (async/await, Codable, ObservableObject).
// Written by hand for policyc as ordinary application code; compiler/ordinary.py turns it
// into Read, Write and Edit events at the path below code/swift/ to measure rule breadth.

import Foundation

struct Forecast: Codable, Equatable, Identifiable {
    let id: UUID
    let city: String
    let temperature: Double
    let summary: String
    let date: Date
}

enum WeatherError: LocalizedError {
    case badStatus(Int)
    case emptyCity

    var errorDescription: String? {
        switch self {
        case .badStatus(let code):
            return "The weather service answered with status \(code)."
        case .emptyCity:
            return "Enter a city name."
        }
    }
}

protocol WeatherService {
    func forecast(for city: String) async throws -> [Forecast]
}

struct HTTPWeatherService: WeatherService {
    let baseURL: URL
    var session: URLSession = .shared

    func forecast(for city: String) async throws -> [Forecast] {
        var components = URLComponents(url: baseURL.appendingPathComponent("forecast"), resolvingAgainstBaseURL: false)
        components?.queryItems = [URLQueryItem(name: "city", value: city)]
        guard let url = components?.url else { throw URLError(.badURL) }

        let (data, response) = try await session.data(from: url)
        if let http = response as? HTTPURLResponse, !(200..<300).contains(http.statusCode) {
            throw WeatherError.badStatus(http.statusCode)
        }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return try decoder.decode([Forecast].self, from: data)
    }
}

@MainActor
final class WeatherStore: ObservableObject {
    @Published private(set) var forecasts: [Forecast] = []
    @Published private(set) var isLoading = false
    @Published var errorMessage: String?

    private let service: WeatherService

    init(service: WeatherService) {
        self.service = service
    }

    func load(city: String) async {
        let trimmed = city.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty else {
            errorMessage = WeatherError.emptyCity.localizedDescription
            return
        }
        isLoading = true
        defer { isLoading = false }
        do {
            forecasts = try await service.forecast(for: trimmed).sorted { $0.date < $1.date }
            errorMessage = nil
        } catch {
            errorMessage = error.localizedDescription
        }
    }

    var warmest: Forecast? {
        forecasts.max { $0.temperature < $1.temperature }
    }
}
